import { SectionHeading } from "../components/section-heading.tsx";

const FACTS = [
  { value: "~1 s", label: "from one device to the next" },
  { value: "15 min", label: "free message lifetime, up to unlimited" },
  { value: "7 days", label: "before a discussion cleans itself up" },
] as const;

export function AboutSection() {
  return (
    <section id="about" className="section" aria-labelledby="about-title">
      <div className="container about">
        <SectionHeading id="about-title" eyebrow="About" title="A clipboard that follows you, kept by day" centered={false}>
          Daysync exists because emailing yourself links and photos feels silly. It gives each day its own page of messages and files,
          synced to every device you sign in on, and tidies up after itself so nothing lingers longer than you want.
        </SectionHeading>
        <dl className="about__facts">
          {FACTS.map((fact) => (
            <div key={fact.label} className="about__fact">
              <dt>{fact.label}</dt>
              <dd>{fact.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}

import { Icon } from "../components/icons.tsx";
import { SectionHeading } from "../components/section-heading.tsx";
import { STEPS } from "../site-content.ts";

export function StepsSection() {
  return (
    <section id="steps" className="section section--alt" aria-labelledby="steps-title">
      <div className="container">
        <SectionHeading id="steps-title" eyebrow="How it works" title="Three steps, no cable">
          From the phone in your hand to the computer on your desk.
        </SectionHeading>
        <ol className="steps">
          {STEPS.map((step, index) => (
            <li key={step.title} className="step">
              <span className="step__number">{index + 1}</span>
              <span className="step__icon">
                <Icon name={step.icon} size={28} />
              </span>
              <h3>{step.title}</h3>
              <p>{step.body}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

import { SectionHeading } from "../components/section-heading.tsx";
import { FAQ } from "../site-content.ts";

export function FaqSection() {
  return (
    <section id="faq" className="section" aria-labelledby="faq-title">
      <div className="container container--narrow">
        <SectionHeading id="faq-title" eyebrow="FAQ" title="Questions and answers" />
        <div className="faq">
          {FAQ.map((item) => (
            <details key={item.question} className="faq__item">
              <summary>
                <h3>{item.question}</h3>
              </summary>
              <p>{item.answer}</p>
            </details>
          ))}
        </div>
        <p className="faq__more">
          What the server keeps, for how long, and who can read it: <a href="/privacy">Privacy</a>.
        </p>
      </div>
    </section>
  );
}

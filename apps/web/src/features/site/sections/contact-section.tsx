import { CONTACT } from "@daysync/shared";
import { Icon } from "../components/icons.tsx";
import { SectionHeading } from "../components/section-heading.tsx";

export function ContactSection() {
  return (
    <section id="contact" className="section section--alt" aria-labelledby="contact-title">
      <div className="container">
        <SectionHeading id="contact-title" eyebrow="Contact" title="Talk to the people who build it">
          Questions, ideas or a bug to report? Daysync Labs is a small team and we read every message.
        </SectionHeading>
        <div className="contact">
          <a className="contact__card" href={`mailto:${CONTACT.email}`}>
            <span className="card__icon">
              <Icon name="mail" />
            </span>
            <span>
              <span className="contact__label">Write to us</span>
              <span className="contact__value">{CONTACT.email}</span>
            </span>
          </a>
          <a className="contact__card" href={`tel:${CONTACT.phone}`}>
            <span className="card__icon">
              <Icon name="phone" />
            </span>
            <span>
              <span className="contact__label">Call us</span>
              <span className="contact__value">{CONTACT.phone}</span>
            </span>
          </a>
        </div>
      </div>
    </section>
  );
}

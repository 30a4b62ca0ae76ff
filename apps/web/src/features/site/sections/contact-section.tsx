import { useSiteConfig } from "../../../lib/site-config.ts";
import { Icon } from "../components/icons.tsx";
import { SectionHeading } from "../components/section-heading.tsx";

/** The owner's contact details (CONTACT_EMAIL, CONTACT_PHONE), each only when set; no section without either. */
export function ContactSection() {
  const site = useSiteConfig();
  const email = site?.contact_email;
  const phone = site?.contact_phone;
  if (!email && !phone) return null;
  return (
    <section id="contact" className="section section--alt" aria-labelledby="contact-title">
      <div className="container">
        <SectionHeading id="contact-title" eyebrow="Contact" title="Talk to the people who run this server">
          Questions, ideas or a problem to report? Write or call, and we will answer.
        </SectionHeading>
        <div className="contact">
          {email ? (
            <a className="contact__card" href={`mailto:${email}`}>
              <span className="card__icon">
                <Icon name="mail" />
              </span>
              <span>
                <span className="contact__label">Write to us</span>
                <span className="contact__value">{email}</span>
              </span>
            </a>
          ) : null}
          {phone ? (
            <a className="contact__card" href={`tel:${phone}`}>
              <span className="card__icon">
                <Icon name="phone" />
              </span>
              <span>
                <span className="contact__label">Call us</span>
                <span className="contact__value">{phone}</span>
              </span>
            </a>
          ) : null}
        </div>
      </div>
    </section>
  );
}

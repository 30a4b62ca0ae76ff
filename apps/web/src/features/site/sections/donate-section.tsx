import { useRef } from "react";
import { usePaymentsConfig } from "../../../lib/payments.ts";
import { useSiteConfig } from "../../../lib/site-config.ts";
import { Icon } from "../components/icons.tsx";
import { InfoDialog } from "../components/info-dialog.tsx";
import { SectionHeading } from "../components/section-heading.tsx";

/** Donate goes to the server's donation page (`DONATION_URL`); without one, the button says where donations happen. */
export function DonateSection() {
  const dialog = useRef<HTMLDialogElement>(null);
  const donationUrl = usePaymentsConfig()?.donation_url;
  const contactEmail = useSiteConfig()?.contact_email;
  return (
    <section id="donate" className="section" aria-labelledby="donate-title">
      <div className="container split">
        <SectionHeading id="donate-title" eyebrow="Support us" title="Keep Daysync independent" centered={false}>
          This server is run by people, not investors. Donations keep its free plan generous for everyone.
        </SectionHeading>
        <div className="split__action">
          {donationUrl ? (
            <a href={donationUrl} rel="noopener" className="button button--accent button--large">
              <Icon name="heart" size={20} /> Donate
            </a>
          ) : (
            <button type="button" className="button button--accent button--large" onClick={() => dialog.current?.showModal()}>
              <Icon name="heart" size={20} /> Donate
            </button>
          )}
        </div>
      </div>
      <InfoDialog dialogRef={dialog} title="Thank you for thinking of us">
        <p>
          Donations open in the Daysync mobile app, where your store account handles the payment safely. That part is coming soon: we will
          announce it on this page.
        </p>
        <p>
          Until then the best support is telling a friend about Daysync
          {contactEmail ? (
            <>
              , or writing to <a href={`mailto:${contactEmail}`}>{contactEmail}</a> with what you would like to see next
            </>
          ) : null}
          .
        </p>
      </InfoDialog>
    </section>
  );
}

import { TEXT } from "@daysync/shared";
import { OwnerCopyright } from "../../../components/ui/owner-copyright.tsx";
import { usePaymentsConfig } from "../../../lib/payments.ts";
import { useSiteConfig } from "../../../lib/site-config.ts";
import { BrandLogo } from "./brand-logo.tsx";
import { SiteLink } from "./site-link.tsx";

export function SiteFooter() {
  const donationUrl = usePaymentsConfig()?.donation_url;
  const contactEmail = useSiteConfig()?.contact_email;
  return (
    <footer className="site-footer">
      <div className="container site-footer__grid">
        <div className="site-footer__brand">
          <BrandLogo />
          <p>{TEXT.tagline}</p>
        </div>
        <nav aria-label="Footer" className="site-footer__nav">
          <div>
            <h2 className="site-footer__title">Product</h2>
            <ul>
              <li>
                <SiteLink to="/">Overview</SiteLink>
              </li>
              <li>
                <SiteLink to="/home">Use cases and download</SiteLink>
              </li>
              <li>
                <a href="/#pricing">Pricing</a>
              </li>
              <li>
                <a href="/#faq">Questions and answers</a>
              </li>
              <li>
                <SiteLink to="/privacy">Privacy</SiteLink>
              </li>
              {donationUrl ? (
                <li>
                  <a href={donationUrl} rel="noopener">
                    Donate
                  </a>
                </li>
              ) : null}
            </ul>
          </div>
          <div>
            <h2 className="site-footer__title">Account</h2>
            <ul>
              <li>
                <SiteLink to="/login">Login</SiteLink>
              </li>
              <li>
                <SiteLink to="/register">Register</SiteLink>
              </li>
              {contactEmail ? (
                <li>
                  <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
                </li>
              ) : null}
            </ul>
          </div>
        </nav>
      </div>
      <div className="container site-footer__bottom">
        <p>
          <OwnerCopyright />
        </p>
        <p>{TEXT.version}</p>
      </div>
    </footer>
  );
}

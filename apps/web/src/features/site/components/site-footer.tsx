import { CONTACT, TEXT } from "@daysync/shared";
import { Link } from "react-router";
import { BrandLogo } from "./brand-logo.tsx";

export function SiteFooter() {
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
                <Link to="/">Overview</Link>
              </li>
              <li>
                <Link to="/home">Use cases and download</Link>
              </li>
              <li>
                <a href="/#pricing">Pricing</a>
              </li>
              <li>
                <a href="/#faq">Questions and answers</a>
              </li>
            </ul>
          </div>
          <div>
            <h2 className="site-footer__title">Account</h2>
            <ul>
              <li>
                <Link to="/login">Login</Link>
              </li>
              <li>
                <Link to="/register">Register</Link>
              </li>
              <li>
                <a href={`mailto:${CONTACT.email}`}>{CONTACT.email}</a>
              </li>
            </ul>
          </div>
        </nav>
      </div>
      <div className="container site-footer__bottom">
        <p>{TEXT.copyright}</p>
        <p>{TEXT.version}</p>
      </div>
    </footer>
  );
}

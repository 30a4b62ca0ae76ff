import type { ReactNode } from "react";
import { SiteFooter } from "./site-footer.tsx";
import { type NavLink, SiteHeader } from "./site-header.tsx";
import "../styles/site-base.css";
import "../styles/site-chrome.css";
import "../styles/site-sections.css";
import "../styles/site-cards.css";
import "../styles/site-offer.css";

/** Frame of a public page: skip link, header, the page's sections, footer. */
export function SiteLayout({ links, children }: { links: readonly NavLink[]; children: ReactNode }) {
  return (
    <div className="site">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <SiteHeader links={links} />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}

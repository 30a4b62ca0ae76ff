import { TEXT } from "@daysync/shared";
import type { ReactNode, Ref } from "react";
import { MailIcon, MenuIcon, PhoneIcon } from "../../../components/ui/icons.tsx";
import { ThemeToggle } from "../../../components/ui/theme-toggle.tsx";
import { useSiteConfig } from "../../../lib/site-config.ts";

interface TopBarProps {
  sidebarId: string;
  expanded: boolean;
  onToggle: () => void;
  /** Controls of other parts of the app, before the theme toggle (assembled in app/). */
  actions?: ReactNode;
  ref?: Ref<HTMLButtonElement>;
}

export function TopBar({ sidebarId, expanded, onToggle, actions, ref }: TopBarProps) {
  // The owner's contact links (CONTACT_PHONE, CONTACT_EMAIL), each only when set.
  const site = useSiteConfig();
  return (
    <header className="topbar">
      <button
        ref={ref}
        type="button"
        className="topbar-toggle"
        aria-label="Menu"
        aria-expanded={expanded}
        aria-controls={sidebarId}
        onClick={onToggle}
      >
        <MenuIcon />
      </button>
      <span className="topbar-brand" aria-hidden="true">
        {TEXT.productName}
      </span>
      {site?.contact_phone || site?.contact_email ? (
        <nav className="topbar-links" aria-label="Contact">
          {site.contact_phone ? (
            <a className="topbar-link" href={`tel:${site.contact_phone}`}>
              <PhoneIcon size={18} />
              <span className="topbar-link-text">{TEXT.callUs}</span>
            </a>
          ) : null}
          {site.contact_email ? (
            <a className="topbar-link" href={`mailto:${site.contact_email}`}>
              <MailIcon size={18} />
              <span className="topbar-link-text">{TEXT.contactUs}</span>
            </a>
          ) : null}
        </nav>
      ) : null}
      {actions}
      <ThemeToggle className="topbar-theme" />
    </header>
  );
}

import { CONTACT, TEXT } from "@daysync/shared";
import type { ReactNode, Ref } from "react";
import { MailIcon, MenuIcon, PhoneIcon } from "../../../components/ui/icons.tsx";
import { ThemeToggle } from "../../../components/ui/theme-toggle.tsx";

interface TopBarProps {
  sidebarId: string;
  expanded: boolean;
  onToggle: () => void;
  /** Controls of other parts of the app, before the theme toggle (assembled in app/). */
  actions?: ReactNode;
  ref?: Ref<HTMLButtonElement>;
}

export function TopBar({ sidebarId, expanded, onToggle, actions, ref }: TopBarProps) {
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
      <nav className="topbar-links" aria-label="Contact">
        <a className="topbar-link" href={`tel:${CONTACT.phone}`}>
          <PhoneIcon size={18} />
          <span className="topbar-link-text">{TEXT.callUs}</span>
        </a>
        <a className="topbar-link" href={`mailto:${CONTACT.email}`}>
          <MailIcon size={18} />
          <span className="topbar-link-text">{TEXT.contactUs}</span>
        </a>
      </nav>
      {actions}
      <ThemeToggle className="topbar-theme" />
    </header>
  );
}

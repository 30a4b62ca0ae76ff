import { useEffect, useId, useState } from "react";
import { ThemeToggle } from "../../../components/ui/theme-toggle.tsx";
import { useSiteConfig } from "../../../lib/site-config.ts";
import { useSession } from "../hooks/use-session.ts";
import { BrandLogo } from "./brand-logo.tsx";
import { Icon } from "./icons.tsx";
import { SiteLink } from "./site-link.tsx";
import "../../../components/ui/icon-button.css";

export interface NavLink {
  href: string;
  label: string;
}

/** Sticky header of the public pages: section links, theme, and sign-in or the dashboard. */
export function SiteHeader({ links }: { links: readonly NavLink[] }) {
  const session = useSession();
  const site = useSiteConfig();
  // The contact section is there only when the owner set a way to reach them.
  const shown = links.filter((link) => link.href !== "#contact" || site?.contact_email || site?.contact_phone);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();

  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMenuOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  return (
    <header className="site-header">
      <div className="site-header__inner container">
        <SiteLink to="/" className="site-header__brand" aria-label="Daysync home">
          <BrandLogo />
        </SiteLink>
        <nav aria-label="Sections" className="site-nav" data-open={menuOpen}>
          <ul id={menuId} className="site-nav__list">
            {shown.map((link) => (
              <li key={link.href}>
                <a href={link.href} onClick={() => setMenuOpen(false)}>
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="site-header__actions">
          <ThemeToggle />
          {session === "signed-in" ? (
            <SiteLink to="/dashboard" className="button button--primary button--small">
              Open dashboard
            </SiteLink>
          ) : (
            <>
              <SiteLink to="/login" className="button button--ghost button--small">
                Login
              </SiteLink>
              <SiteLink to="/register" className="button button--primary button--small site-header__register">
                Register
              </SiteLink>
            </>
          )}
          <button
            type="button"
            className="icon-button site-header__menu"
            aria-expanded={menuOpen}
            aria-controls={menuId}
            aria-label="Menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <Icon name={menuOpen ? "close" : "menu"} size={22} />
          </button>
        </div>
      </div>
    </header>
  );
}

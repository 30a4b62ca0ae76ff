import { TEXT } from "@daysync/shared";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { BrandMark } from "../../components/ui/brand-mark.tsx";
import { DevicesIcon, ShieldIcon, SyncIcon } from "../../components/ui/icons.tsx";
import { OwnerCopyright } from "../../components/ui/owner-copyright.tsx";
import { ThemeToggle } from "../../components/ui/theme-toggle.tsx";
import "./auth.css";

const POINTS = [
  { icon: <SyncIcon />, text: "Copy on your phone, paste on your PC: every device is in sync within a second." },
  { icon: <DevicesIcon />, text: "Android, iOS, Windows, macOS, Linux and the web — one account." },
  { icon: <ShieldIcon />, text: "Messages disappear on schedule. Nothing lingers that you did not keep." },
];

/** The two-panel frame of the sign-in and register screens. */
export function AuthLayout({ children, aside }: { children: ReactNode; aside?: ReactNode }) {
  return (
    <div className="auth">
      <section className="auth-hero" aria-label={`About ${TEXT.productName}`}>
        <Link to="/" className="auth-brand">
          <BrandMark size={36} />
          {TEXT.productName}
        </Link>
        <div className="auth-hero-body">
          <p className="auth-tagline">{TEXT.tagline}</p>
          <ul className="auth-points">
            {POINTS.map((p) => (
              <li key={p.text}>
                <span className="auth-point-icon">{p.icon}</span>
                {p.text}
              </li>
            ))}
          </ul>
        </div>
      </section>
      <div className="auth-side">
        <ThemeToggle className="auth-theme" />
        <main className="auth-main">
          <div className={aside ? "auth-stage auth-stage-with-aside" : "auth-stage"}>
            <div className="auth-card">{children}</div>
            {aside}
          </div>
        </main>
        <footer className="auth-footer">
          <OwnerCopyright />
          <span>{TEXT.version}</span>
        </footer>
      </div>
    </div>
  );
}

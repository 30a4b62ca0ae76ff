import { TEXT } from "@daysync/shared";
import { SiteLink } from "../components/site-link.tsx";
import { StoreButtons } from "../components/store-buttons.tsx";
import { HeroIllustration } from "./hero-illustration.tsx";

export function HeroSection() {
  return (
    <section id="hero" className="hero" aria-labelledby="hero-title">
      <div className="container hero__grid">
        <div className="hero__copy">
          <p className="hero__badge">
            <span className="hero__badge-dot" /> Free to start · no card needed
          </p>
          <h1 id="hero-title">{TEXT.tagline}</h1>
          <p className="hero__lead">
            Daysync is the shortest way from your phone to your computer. Send yourself a link, a note or a file and it is waiting on every
            device, on today's page, a second later.
          </p>
          <div className="hero__actions">
            <SiteLink to="/register" className="button button--primary button--large">
              Create a free account
            </SiteLink>
            <a href="#steps" className="button button--ghost button--large">
              See how it works
            </a>
          </div>
          <StoreButtons />
        </div>
        <HeroIllustration />
      </div>
    </section>
  );
}

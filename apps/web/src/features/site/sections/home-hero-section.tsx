import { TEXT } from "@daysync/shared";
import { SiteLink } from "../components/site-link.tsx";

export function HomeHeroSection() {
  return (
    <section id="hero" className="hero hero--simple" aria-labelledby="home-title">
      <div className="container container--narrow hero__copy hero__copy--center">
        <p className="eyebrow">{TEXT.productName} for every device</p>
        <h1 id="home-title">Your phone and your computer, finally on the same page.</h1>
        <p className="hero__lead">
          {TEXT.tagline} Send yourself text, links and files, find them on today's page everywhere you are signed in.
        </p>
        <div className="hero__actions hero__actions--center">
          <a href="#download" className="button button--primary button--large">
            Get the app
          </a>
          <SiteLink to="/" className="button button--ghost button--large">
            Take the full tour
          </SiteLink>
        </div>
      </div>
    </section>
  );
}

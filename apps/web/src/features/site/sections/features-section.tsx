import { SectionHeading } from "../components/section-heading.tsx";
import { KEY_FEATURES } from "../site-content.ts";
import { CardGrid } from "./card-grid.tsx";

export function FeaturesSection() {
  return (
    <section id="features" className="section" aria-labelledby="features-title">
      <div className="container">
        <SectionHeading id="features-title" eyebrow="Key features" title="Small app, carefully made">
          Everything you need to move things between your devices, and nothing that gets in the way.
        </SectionHeading>
        <CardGrid cards={KEY_FEATURES} variant="feature" />
      </div>
    </section>
  );
}

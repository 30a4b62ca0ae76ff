import { FEATURED_CARDS } from "../site-content.ts";
import { CardGrid } from "./card-grid.tsx";

export function FeaturedSection() {
  return (
    <section id="featured" className="section section--tight" aria-label="Highlights">
      <div className="container">
        <CardGrid cards={FEATURED_CARDS} variant="featured" />
      </div>
    </section>
  );
}

import { SectionHeading } from "../components/section-heading.tsx";
import { USE_CASES } from "../site-content.ts";
import { CardGrid } from "./card-grid.tsx";

export function UseCasesSection() {
  return (
    <section id="use-cases" className="section" aria-labelledby="use-cases-title">
      <div className="container">
        <SectionHeading id="use-cases-title" eyebrow="Use cases" title="What people send through Daysync">
          A few of the everyday moments it was made for.
        </SectionHeading>
        <CardGrid cards={USE_CASES} variant="use-case" />
      </div>
    </section>
  );
}

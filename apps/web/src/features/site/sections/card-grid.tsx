import { Icon } from "../components/icons.tsx";
import type { Card } from "../site-content.ts";

/** Icon cards used by the featured, features and use-case sections. */
export function CardGrid({ cards, variant }: { cards: readonly Card[]; variant: "featured" | "feature" | "use-case" }) {
  return (
    <ul className={`card-grid card-grid--${variant}`}>
      {cards.map((card) => (
        <li key={card.title} className={`card card--${variant}`}>
          <span className="card__icon">
            <Icon name={card.icon} />
          </span>
          <h3>{card.title}</h3>
          <p>{card.body}</p>
        </li>
      ))}
    </ul>
  );
}

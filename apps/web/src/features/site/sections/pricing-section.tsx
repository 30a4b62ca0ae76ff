import { FREE_PLAN, NO_PAYMENTS_NOTE, PREMIUM_PLAN } from "@daysync/shared";
import { usePaymentsConfig } from "../../../lib/payments.ts";
import { Icon } from "../components/icons.tsx";
import { SectionHeading } from "../components/section-heading.tsx";
import { SiteLink } from "../components/site-link.tsx";

interface Plan {
  name: string;
  price: string;
  period: string;
  summary: string;
  perks: readonly string[];
  highlighted?: boolean;
}

const PLANS: readonly Plan[] = [
  {
    name: "Free",
    price: `$${FREE_PLAN.price_per_month}`,
    period: "forever",
    summary: "Everything you need to move things between your devices.",
    perks: [
      `Messages remain ${FREE_PLAN.max_message_duration} min`,
      "Discussions last 7 days",
      "Files up to 100 MiB",
      "All your devices, all platforms",
    ],
  },
  {
    name: "Premium",
    price: `$${PREMIUM_PLAN.price_per_month}`,
    period: "per month",
    summary: "Keep things longer, extend the rooms that matter.",
    perks: [
      "Message retention of 1 h, 24 h or unlimited",
      "Extend any discussion by 7 or 30 days",
      "Files up to 2 GiB",
      "Priority support and 24/7 live chat",
    ],
    highlighted: true,
  },
  {
    name: "Per discussion",
    price: "$0.99",
    period: "for 7 days",
    summary: "No subscription: pay once for the room you need.",
    perks: ["$0.99 for 7 days", "$2.99 for 30 days", "One participant pays for everyone", "Apple Pay and Google Pay"],
  },
];

/** What a paid plan's card offers: the way to buy it where this server takes payments, nothing while that is asked. */
function PaidCta({ plan, payments }: { plan: Plan; payments: boolean | undefined }) {
  if (payments === undefined) return null;
  if (!payments) return <p className="plan__cta plan__soon">Not sold on this server</p>;
  return plan.name === "Premium" ? (
    <a href="/dashboard/plan" className="button button--primary plan__cta">
      Upgrade to Premium
    </a>
  ) : (
    <p className="plan__cta plan__soon">
      <Icon name="clock" size={18} /> Pay from a discussion's Extend button
    </p>
  );
}

export function PricingSection() {
  const config = usePaymentsConfig();
  // Prices only where this server takes payments (and once that is known); without them, nothing is sold per discussion.
  const priced = config?.payments === true;
  const plans = priced ? PLANS : PLANS.filter((plan) => plan.name !== "Per discussion");
  return (
    <section id="pricing" className="section section--alt" aria-labelledby="pricing-title">
      <div className="container">
        <SectionHeading id="pricing-title" eyebrow="Pricing" title="Start free, upgrade when you need to">
          Every new account starts on Free.
          {config?.payments ? " Premium and extensions are paid through Stripe: cards, Apple Pay and Google Pay; cancel any time." : null}
          {config && !config.payments ? ` ${NO_PAYMENTS_NOTE}` : null}
        </SectionHeading>
        <ul className="pricing">
          {plans.map((plan) => (
            <li key={plan.name} className={plan.highlighted ? "plan plan--highlighted" : "plan"}>
              {plan.highlighted ? <p className="plan__tag">Most flexible</p> : null}
              <h3>{plan.name}</h3>
              {priced ? (
                <p className="plan__price">
                  <span className="plan__amount">{plan.price}</span> <span className="plan__period">{plan.period}</span>
                </p>
              ) : null}
              <p className="plan__summary">{plan.summary}</p>
              <ul className="plan__perks">
                {plan.perks.map((perk) => (
                  <li key={perk}>
                    <Icon name="check" size={18} /> {perk}
                  </li>
                ))}
              </ul>
              {plan.name === "Free" ? (
                <SiteLink to="/register" className="button button--primary plan__cta">
                  Create a free account
                </SiteLink>
              ) : (
                <PaidCta plan={plan} payments={config?.payments} />
              )}
            </li>
          ))}
        </ul>
        {config?.donation_url ? (
          <p className="pricing__donate">
            <a href={config.donation_url} rel="noopener">
              <Icon name="heart" size={18} /> Donate to support this server
            </a>
          </p>
        ) : null}
      </div>
    </section>
  );
}

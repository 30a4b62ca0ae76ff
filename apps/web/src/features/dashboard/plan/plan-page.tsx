import {
  APP_ROUTES,
  describeRetention,
  formatDisplayDate,
  formatStoredDate,
  hasNoEndDate,
  PREMIUM_PLAN,
  PREMIUM_RETENTION_CHOICES,
  PREMIUM_TYPE_ID,
  STRIPE_PAYMENT_MODE,
} from "@daysync/shared";
import { Link } from "react-router";
import { StarIcon } from "../../../components/ui/icons.tsx";
import { usePaymentsConfig } from "../../../lib/payments.ts";
import { useCurrentUser } from "../../../lib/session-services.ts";
import { useCheckoutReturn } from "../../../lib/use-checkout-return.ts";
import { messageLifetimePhrase } from "./message-lifetime.ts";
import { CheckoutReturnNotice, ManageSubscriptionButton, NoPaymentsNote, UpgradeButton } from "./plan-payments.tsx";
import { RetentionPicker } from "./retention-picker.tsx";
import { StorageMeter } from "./storage-meter.tsx";
import "../../../components/ui/ui.css";
import "./plan.css";

/** Dates of the API may be ISO text or ms since the epoch; shown dd/MM/yyyy like every date of the app. */
function showDate(value: string | number): string {
  const d = new Date(typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value);
  return Number.isNaN(d.getTime()) ? String(value) : formatDisplayDate(formatStoredDate(d));
}

function price(perMonth: number): string {
  return perMonth === 0 ? "Free" : `$${perMonth.toFixed(2)} / month`;
}

export function PlanPage() {
  const user = useCurrentUser();
  const premium = user.subscription_type_id === PREMIUM_TYPE_ID;
  const payments = usePaymentsConfig();
  // A server that takes no payments shows its plans without prices.
  const priced = payments?.payments === true;
  const noEndDate = hasNoEndDate(Date.parse(user.date_expiration_subscription));
  const checkoutReturn = useCheckoutReturn();
  const [first, second, third] = PREMIUM_RETENTION_CHOICES.map((c) => describeRetention(c).toLowerCase());
  return (
    <div className="app-page plan-page">
      <header className="plan-header">
        <p className="app-page-eyebrow">Your plan</p>
        <h1>{user.title_subscription}</h1>
        <p className="plan-description">{user.description_subscription}</p>
      </header>

      <CheckoutReturnNotice result={checkoutReturn} />

      <section className="plan-card" aria-labelledby="plan-facts">
        <h2 id="plan-facts" className="visually-hidden">
          Plan details
        </h2>
        <span className={premium ? "plan-badge plan-badge-premium" : "plan-badge"}>
          {premium ? <StarIcon size={14} /> : null}
          {premium ? "Premium" : "Free"}
        </span>
        <dl className="plan-facts">
          <div>
            <dt>Messages last</dt>
            <dd>{describeRetention(user.max_message_duration)}</dd>
          </div>
          {priced ? (
            <div>
              <dt>Price</dt>
              <dd>{price(user.price_per_month)}</dd>
            </div>
          ) : null}
          <div>
            <dt>{premium ? "Expires on" : "Renews on"}</dt>
            <dd>{noEndDate ? "No end date" : showDate(user.date_expiration_subscription)}</dd>
          </div>
          <div>
            <dt>Member since</dt>
            <dd>{showDate(user.timestamps)}</dd>
          </div>
        </dl>
        <p className="plan-lifetime">
          On the {user.title_subscription}, {messageLifetimePhrase(user.max_message_duration)}.
        </p>
      </section>

      <StorageMeter />

      <section className="plan-card" aria-labelledby="plan-privacy">
        <h2 id="plan-privacy">What the server sees</h2>
        <p className="plan-note">
          Your messages and files, their names included, are end-to-end encrypted: only your devices can read them. To keep them for as long
          as your plan says and to count your storage, the server still sees their sizes, times and types, how many there are, and which of
          your devices sent each. Discussions are end-to-end encrypted with their own key; the server sees their size, times, member count
          and when people joined and left. <Link to={`${APP_ROUTES.privacy}#who-can-read`}>Who can read what</Link>
        </p>
      </section>

      {premium ? (
        <section className="plan-card" aria-label="Retention">
          <RetentionPicker current={user.max_message_duration} />
          <p className="plan-note">Changing it applies to the messages you already have, on every device.</p>
          {payments?.payments && user.payment_mode === STRIPE_PAYMENT_MODE ? <ManageSubscriptionButton /> : null}
        </section>
      ) : (
        <section className="plan-card plan-upsell" aria-labelledby="premium-title">
          <h2 id="premium-title">
            <StarIcon size={18} /> {PREMIUM_PLAN.title}
          </h2>
          <p>
            Choose how long your messages last — {first}, {second} or {third} — instead of {describeRetention(user.max_message_duration)}
            {priced ? `, for ${price(PREMIUM_PLAN.price_per_month)}` : ""}.
          </p>
          {payments === undefined ? null : payments.payments ? <UpgradeButton /> : <NoPaymentsNote />}
        </section>
      )}
    </div>
  );
}

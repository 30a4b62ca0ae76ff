/** Stripe payments: events handled, customers, subscriptions and checkouts granted. */

/** A Stripe event handled: stored in the transaction of what it grants, so a repeated event grants nothing more. */
export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: number;
}

/** The Stripe customer of a user (made at their first checkout). */
export interface PaymentCustomersTable {
  user_id: string;
  customer_id: string;
  created_at: number;
}

/** A Stripe subscription as last read from Stripe. */
export interface PaymentSubscriptionsTable {
  id: string;
  user_id: string;
  status: string;
  /** ms since the epoch. */
  current_period_end: number;
  updated_at: number;
}

/** A paid Checkout session whose purchase was granted: the webhook and the success page grant it once between them. */
export interface PaymentCheckoutsTable {
  id: string;
  user_id: string;
  kind: "premium" | "extension";
  space_id: string | null;
  days: number | null;
  amount: number;
  currency: string;
  granted_at: number;
}

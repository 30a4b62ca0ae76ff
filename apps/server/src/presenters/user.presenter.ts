import type { User } from "@daysync/shared";
import type { SubscriptionsTable, UsersTable } from "../db/schema.ts";

/** A user's row with their current subscription, as the accounts' repository reads it. */
export type UserWithPlan = Pick<
  UsersTable,
  "id" | "name" | "email" | "actual_subscription_id" | "created_at" | "role" | "email_verified_at"
> & {
  plan: SubscriptionsTable;
};

/** The user as the API shows it: the spec's user document, plan fields from the current subscription. */
export function presentUser(
  u: Pick<UsersTable, "id" | "name" | "email" | "actual_subscription_id" | "created_at" | "role" | "email_verified_at">,
  s: SubscriptionsTable,
): User {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    actual_subscription_id: u.actual_subscription_id,
    title_subscription: s.title_subscription,
    subscription_type_id: s.subscription_type_id,
    max_message_duration: s.max_message_duration === null ? null : Number(s.max_message_duration),
    price_per_month: Number(s.price_per_month),
    subscription_duration: s.subscription_duration,
    date_subscription: new Date(Number(s.date_subscription)).toISOString(),
    description_subscription: s.description_subscription,
    date_expiration_subscription: new Date(Number(s.date_expiration_subscription)).toISOString(),
    payment_mode: s.payment_mode,
    timestamps: Number(u.created_at),
    role: u.role,
    email_verified: u.email_verified_at != null,
  };
}

/** Plans and their limits (product.md section 4). */

export const FREE_TYPE_ID = 1;
export const PREMIUM_TYPE_ID = 2;

export interface SubscriptionType {
  id: number;
  title: string;
  description: string;
  /** Minutes a message lives; null means unlimited. */
  max_message_duration: number | null;
  price_per_month: number;
  /** Days a subscription lasts. */
  subscription_duration: number;
}

export const FREE_PLAN: SubscriptionType = {
  id: FREE_TYPE_ID,
  title: "Free plan",
  description: "Your messages remain 15 min before disappear",
  max_message_duration: 15,
  price_per_month: 0,
  subscription_duration: 60,
};

export const PREMIUM_PLAN: SubscriptionType = {
  id: PREMIUM_TYPE_ID,
  title: "Premium plan",
  description: "Your messages remain 1 hour, 24 hours or for as long as you like",
  max_message_duration: 60,
  price_per_month: 4.99,
  subscription_duration: 30,
};

export const SUBSCRIPTION_TYPES = [FREE_PLAN, PREMIUM_PLAN] as const;

/** Retention a Premium user may pick, in minutes; null is unlimited. */
export const PREMIUM_RETENTION_CHOICES = [60, 1440, null] as const;
export type RetentionChoice = (typeof PREMIUM_RETENTION_CHOICES)[number];

export function describeRetention(minutes: number | null): string {
  if (minutes === null) return "Unlimited";
  if (minutes % 1440 === 0) return minutes === 1440 ? "24 hours" : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "1 hour" : `${minutes / 60} hours`;
  return `${minutes} min`;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

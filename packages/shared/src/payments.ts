/**
 * Payments (issue 30): Premium monthly and discussion extensions through Stripe Checkout, off unless the server's
 * operator configures Stripe. The web app asks `PAYMENTS_API.config` whether this server takes payments.
 */
import { z } from "zod";
import { DISCUSSION_EXTENSION_DAYS } from "./discussions.ts";

export const PAYMENTS_API = {
  /** GET, public: whether this server takes payments, and its donation page. Answers whether payments are on or off. */
  config: "/api/payments/config",
  /** POST: a Checkout for Premium monthly → `{ url }`. */
  premiumCheckout: "/api/payments/checkout/premium",
  /** POST `{ discussion_id, days }`: a Checkout for a discussion's extension → `{ url }`. */
  extensionCheckout: "/api/payments/checkout/extension",
  /** POST: the success page grants what the session bought (the same grant as the webhook's) → `PaymentCheckoutResult`. */
  confirm: (sessionId: string) => `/api/payments/checkout/${encodeURIComponent(sessionId)}/confirm`,
  /** POST: Stripe's billing portal for the caller → `{ url }`. */
  portal: "/api/payments/portal",
  /** POST from Stripe: signed events. */
  webhook: "/api/payments/webhook",
} as const;

/** The query parameter Stripe's success URL brings back: the Checkout session's id. */
export const CHECKOUT_RETURN_PARAM = "checkout";

/** How a Premium bought through Stripe shows in the user's `payment_mode`. */
export const STRIPE_PAYMENT_MODE = "stripe";

/** Prices as the site shows them (the operator's Stripe prices are what is charged). */
export const EXTENSION_PRICES = { 7: "$0.99", 30: "$2.99" } as const;

export type DiscussionExtensionDays = (typeof DISCUSSION_EXTENSION_DAYS)[number];

export const paymentsConfigSchema = z.object({
  payments: z.boolean(),
  donation_url: z.string().nullable(),
});
export type PaymentsConfig = z.infer<typeof paymentsConfigSchema>;

export const extensionCheckoutSchema = z.object({
  discussion_id: z.string().min(1).max(100),
  days: z.literal([...DISCUSSION_EXTENSION_DAYS], { error: "days must be 7 or 30." }),
});

export const checkoutSessionIdSchema = z.string().regex(/^[A-Za-z0-9_]{1,255}$/, "Not a checkout session id.");

export const paymentRedirectSchema = z.object({ url: z.string().url() });

/** granted: paid and given (now or before); pending: not paid yet; refused: it buys nothing here. */
export const paymentCheckoutResultSchema = z.object({ status: z.enum(["granted", "pending", "refused"]) });
export type PaymentCheckoutResult = z.infer<typeof paymentCheckoutResultSchema>;

/** Who grants Premium where this server takes no payments, as the pages say it. */
export const NO_PAYMENTS_NOTE =
  "This server does not take payments. Premium is granted by the person who runs it, with the command npm run admin.";

/**
 * The payments routes and what the pages say about payments. Kept apart from payments.ts, which makes zod schemas
 * as it loads: the public pages ask `PAYMENTS_API.config` and must not bring zod into their small bundle.
 */
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

/** Who grants Premium where this server takes no payments, as the pages say it. */
export const NO_PAYMENTS_NOTE =
  "This server does not take payments. Premium is granted by the person who runs it, with the command npm run admin.";

/**
 * Payments (issue 30): Premium monthly and discussion extensions through Stripe Checkout, off unless the server's
 * operator configures Stripe. The web app asks `PAYMENTS_API.config` whether this server takes payments.
 */
import { z } from "zod";
import { DISCUSSION_EXTENSION_DAYS } from "./discussion-limits.ts";

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

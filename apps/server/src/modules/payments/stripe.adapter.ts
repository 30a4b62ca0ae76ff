/**
 * The Stripe API through Stripe's own library, pointed at `STRIPE_API_URL` (a local fake in tests). Every answer and
 * every webhook event is read through a schema of the few fields we use: what comes from outside is never cast.
 */
import Stripe from "stripe";
import { z } from "zod";
import type { StripeConfig } from "../../config/config.ts";
import { badRequest } from "../../http/errors.ts";

const metadata = z
  .record(z.string(), z.string())
  .nullish()
  .transform((m) => m ?? {});
/** An id, or the object it names when Stripe expanded it. */
const idOf = z.union([z.string(), z.object({ id: z.string() }).transform((o) => o.id)]);

export const checkoutSessionSchema = z.object({
  id: z.string(),
  mode: z.string(),
  status: z.string().nullish(),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  customer: idOf.nullish(),
  subscription: idOf.nullish(),
  amount_total: z.number().nullish(),
  currency: z.string().nullish(),
  metadata,
  line_items: z
    .object({
      data: z.array(
        z.object({
          quantity: z.number().nullish(),
          price: z.object({ id: z.string(), unit_amount: z.number().nullish(), currency: z.string() }).nullish(),
        }),
      ),
    })
    .nullish(),
});
export type CheckoutSession = z.infer<typeof checkoutSessionSchema>;

export const subscriptionSchema = z.object({
  id: z.string(),
  status: z.string(),
  customer: idOf,
  metadata,
  // Since API version 2025-03-31 the period is the items'; the subscription's own field is read when present.
  current_period_end: z.number().nullish(),
  items: z.object({ data: z.array(z.object({ current_period_end: z.number().nullish() })) }).nullish(),
});
export type StripeSubscription = z.infer<typeof subscriptionSchema>;

/** The end of the period paid for, in ms (0 when Stripe names none). */
export function periodEndOf(subscription: StripeSubscription): number {
  const ends = [subscription.current_period_end, ...(subscription.items?.data ?? []).map((item) => item.current_period_end)];
  return Math.max(0, ...ends.filter((end): end is number => typeof end === "number")) * 1000;
}

export const stripeEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  created: z.number(),
  data: z.object({ object: z.object({ id: z.string() }).passthrough() }),
});
export type StripeEvent = z.infer<typeof stripeEventSchema>;

export interface CheckoutRequest {
  mode: "subscription" | "payment";
  price: string;
  userId: string;
  customer?: string;
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string;
}

/** A webhook whose signature is wrong, or whose timestamp is older than the tolerance. */
export class BadSignature extends Error {}

/** How old a signed webhook may be (Stripe's default): a replayed old request is refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function createStripeGateway(config: StripeConfig) {
  const api = new URL(config.apiUrl);
  const protocol = api.protocol === "http:" ? "http" : "https";
  const stripe = new Stripe(config.secretKey, {
    host: api.hostname,
    port: api.port ? Number(api.port) : protocol === "http" ? 80 : 443,
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: "Daysync" },
  });

  return {
    async createCustomer(userId: string, email: string): Promise<string> {
      const customer = await stripe.customers.create({ email, metadata: { user_id: userId } });
      return z.object({ id: z.string() }).parse(customer).id;
    },

    async createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }> {
      const session = await stripe.checkout.sessions.create({
        mode: request.mode,
        line_items: [{ price: request.price, quantity: 1 }],
        client_reference_id: request.userId,
        ...(request.customer ? { customer: request.customer } : {}),
        metadata: request.metadata,
        ...(request.mode === "subscription" ? { subscription_data: { metadata: request.metadata } } : {}),
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      });
      return z.object({ id: z.string(), url: z.string().url() }).parse(session);
    },

    async createPortal(customer: string, returnUrl: string): Promise<string> {
      const session = await stripe.billingPortal.sessions.create({ customer, return_url: returnUrl });
      return z.object({ url: z.string().url() }).parse(session).url;
    },

    /** The session as Stripe holds it now, with its line items; undefined when Stripe has no such session. */
    async checkoutSession(id: string): Promise<CheckoutSession | undefined> {
      try {
        return checkoutSessionSchema.parse(await stripe.checkout.sessions.retrieve(id, { expand: ["line_items"] }));
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return undefined;
        throw error;
      }
    },

    /** The subscription as Stripe holds it now: what decides the plan, whatever order events came in. */
    async subscription(id: string): Promise<StripeSubscription> {
      return subscriptionSchema.parse(await stripe.subscriptions.retrieve(id));
    },

    /** Ends a subscription now; one Stripe no longer has is ended already. */
    async cancelSubscription(id: string): Promise<void> {
      try {
        await stripe.subscriptions.cancel(id);
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing") return;
        throw error;
      }
    },

    /** Verifies the signature and age of a webhook's raw body; throws `BadSignature`. */
    event(rawBody: Buffer, signature: string): StripeEvent {
      let event: unknown;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, config.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
      } catch (error) {
        throw new BadSignature(error instanceof Error ? error.message : String(error));
      }
      const parsed = stripeEventSchema.safeParse(event);
      if (!parsed.success) throw badRequest("This is not a Stripe event we can read.");
      return parsed.data;
    },
  };
}

export type StripeGateway = ReturnType<typeof createStripeGateway>;

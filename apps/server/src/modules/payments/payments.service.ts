/**
 * Payments through Stripe (issue 30): Premium monthly by Checkout (a subscription), a discussion extension paid by
 * any member for everyone, Stripe's billing portal. Grants come from Stripe's word only: a signed webhook, or the
 * success page re-reading the session from Stripe; either runs the same idempotent grant. A subscription decides the
 * plan by its state as Stripe holds it now, never by the order its events arrive in.
 */
import {
  DAY_MS,
  type DiscussionExtensionDays,
  FREE_TYPE_ID,
  type PaymentCheckoutResult,
  PREMIUM_TYPE_ID,
  STRIPE_PAYMENT_MODE,
  type User,
} from "@daysync/shared";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../clock.ts";
import type { StripeConfig } from "../../config/config.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { AppError, conflict, notFound } from "../../http/errors.ts";
import type { UsersRepository } from "../accounts/index.ts";
import { loadUser, recordUserUpdated } from "../accounts/index.ts";
import type { DiscussionsService } from "../discussions/index.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { PaymentsRepository } from "./payments.repository.ts";
import { type CheckoutSession, periodEndOf, type StripeEvent, type StripeGateway, type StripeSubscription } from "./stripe.adapter.ts";

/** Stripe keeps the subscription paid for, or tries again to collect it: Premium until the period's end. */
const ENTITLED_STATUSES = new Set(["active", "trialing", "past_due"]);

/**
 * How long past the paid period a Stripe Premium lasts unless Stripe says more. Stripe renews at the period's end
 * and its event can come a little later: without this, the sweeper would move a paying person to Free (and delete
 * their older messages) in between. An ended subscription ends the plan at once, by its event.
 */
export const RENEWAL_GRACE_MS = DAY_MS;

type EventRecord = Pick<StripeEvent, "id" | "type">;

export function createPaymentsService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  stripe: StripeGateway;
  config: StripeConfig;
  payments: PaymentsRepository;
  plans: PlansRepository;
  users: UsersRepository;
  discussions: DiscussionsService;
  log: FastifyBaseLogger;
}) {
  const { clock, unitOfWork, stripe, config, payments, plans, users, log } = deps;
  const extensionPrice = (days: DiscussionExtensionDays) => (days === 7 ? config.prices.extension7d : config.prices.extension30d);

  /** A call to Stripe that failed: the person is told to try again, never shown a 500. */
  async function calling<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof AppError) throw error;
      log.error({ err: error }, `stripe: ${what} failed`);
      throw new AppError(502, "payment_provider_unavailable", "The payment provider could not be reached. Try again in a moment.");
    }
  }

  const userUpdated = (work: Work, userId: string) => recordUserUpdated(work, users, userId);

  /** Stores an event that grants nothing, so that its repeats are known too. */
  async function storeEvent(event: EventRecord | undefined): Promise<void> {
    if (event) await payments.claimEvent(event.id, event.type, clock.now());
  }

  /** The user a subscription belongs to: ours from its first grant, or from its customer, or from its metadata. */
  async function ownerOf(subscription: StripeSubscription, hint?: string): Promise<string | undefined> {
    const known = (await payments.userOfSubscription(subscription.id)) ?? (await payments.userOfCustomer(subscription.customer));
    if (known) return known;
    const candidate = hint ?? subscription.metadata.user_id;
    return candidate && (await users.findWithPlan(candidate)) ? candidate : undefined;
  }

  /**
   * Brings the user's plan in line with the subscription as Stripe holds it now, in one unit of work with the
   * event's claim. Only a plan bought through this subscription is ended by it: Premium granted by an operator is
   * never touched, and a longer one is not cut short.
   */
  async function applySubscription(subscription: StripeSubscription, event: EventRecord | undefined, hint?: string): Promise<void> {
    const userId = await ownerOf(subscription, hint);
    if (!userId) {
      log.warn({ subscription: subscription.id }, "stripe: a subscription of no known user");
      return storeEvent(event);
    }
    const periodEnd = periodEndOf(subscription);
    const until = periodEnd + RENEWAL_GRACE_MS;
    await unitOfWork.forUser(userId, async (work) => {
      const now = clock.now();
      const mine = payments.in(work.trx);
      if (event && !(await mine.claimEvent(event.id, event.type, now))) return;
      await mine.saveSubscription({
        id: subscription.id,
        user_id: userId,
        status: subscription.status,
        current_period_end: periodEnd,
        updated_at: now,
      });
      const locked = plans.in(work.trx);
      const current = await locked.currentPlanOf(userId);
      if (!current) return;
      const fromThis = current.payment_mode === STRIPE_PAYMENT_MODE && current.id_transaction === subscription.id;
      const entitled = ENTITLED_STATUSES.has(subscription.status) && periodEnd > now;
      if (entitled) {
        if (fromThis) {
          if (Number(current.date_expiration_subscription) === until) return;
          await locked.markPaidByStripe(current.id, subscription.id, until);
        } else {
          const premium = Number(current.subscription_type_id) === PREMIUM_TYPE_ID;
          if (premium && Number(current.date_expiration_subscription) >= until) return;
          // Someone already on Premium keeps the retention they chose.
          const id = await locked.startSubscription(userId, PREMIUM_TYPE_ID, now, premium ? current.max_message_duration : undefined);
          await locked.markPaidByStripe(id, subscription.id, until);
          await users.in(work.trx).setCurrentPlan(userId, id, now);
        }
      } else {
        if (!fromThis) return;
        await users.in(work.trx).setCurrentPlan(userId, await locked.startSubscription(userId, FREE_TYPE_ID, now), now);
      }
      await userUpdated(work, userId);
    });
  }

  /** Why a session grants nothing, or undefined when it is a paid purchase of exactly what we sell. */
  function refusal(session: CheckoutSession, mode: string, price: string): string | undefined {
    if (session.status !== "complete" || session.payment_status !== "paid") return "not paid";
    if (session.mode !== mode) return `mode ${session.mode}, expected ${mode}`;
    const lines = session.line_items?.data ?? [];
    const line = lines[0];
    if (lines.length !== 1 || !line?.price || line.price.id !== price || (line.quantity ?? 1) !== 1) return "not the expected price";
    const expected = line.price.unit_amount;
    if (expected == null || session.amount_total !== expected) return `amount ${session.amount_total}, expected ${expected}`;
    if (session.currency !== line.price.currency) return `currency ${session.currency}, expected ${line.price.currency}`;
    return undefined;
  }

  /** Grants what a completed checkout bought, once, whoever asks first (the webhook or the success page). */
  async function grantCheckout(session: CheckoutSession, event: EventRecord | undefined): Promise<PaymentCheckoutResult> {
    const userId = session.client_reference_id;
    const kind = session.metadata.kind;
    if (!userId || (kind !== "premium" && kind !== "extension")) {
      log.warn({ session: session.id }, "stripe: a checkout session that is not ours");
      await storeEvent(event);
      return { status: "refused" };
    }
    const days = Number(session.metadata.days);
    const isExtension = kind === "extension";
    if (isExtension && days !== 7 && days !== 30) {
      await storeEvent(event);
      return { status: "refused" };
    }
    const why = isExtension
      ? refusal(session, "payment", extensionPrice(days as DiscussionExtensionDays))
      : refusal(session, "subscription", config.prices.premiumMonthly);
    if (why) {
      if (why !== "not paid") log.warn({ session: session.id, why }, "stripe: a checkout session that grants nothing");
      await storeEvent(event);
      return { status: why === "not paid" ? "pending" : "refused" };
    }
    const record = {
      id: session.id,
      user_id: userId,
      kind,
      space_id: isExtension ? (session.metadata.discussion_id ?? null) : null,
      days: isExtension ? days : null,
      amount: session.amount_total ?? 0,
      currency: session.currency ?? "",
      granted_at: clock.now(),
    } as const;
    if (!isExtension) {
      if (session.customer) await payments.saveCustomer(userId, session.customer, clock.now());
      if (!session.subscription) return { status: "refused" };
      const subscription = await stripe.subscription(session.subscription);
      await payments.claimCheckout(record);
      await applySubscription(subscription, event, userId);
      return { status: "granted" };
    }
    const spaceId = record.space_id;
    if (!spaceId) return { status: "refused" };
    const extended = await deps.discussions.extendPaid(spaceId, userId, days, async (trx) => {
      const mine = payments.in(trx);
      if (event && !(await mine.claimEvent(event.id, event.type, clock.now()))) return false;
      return mine.claimCheckout(record);
    });
    if (extended.reason === "granted_before") log.info({ session: session.id }, "stripe: extension granted before");
    else if (extended.excess_ms > 0) {
      // There is no refund flow: what was paid and not applied is logged for the operator to refund by hand (issue 42).
      log.warn(
        {
          session: session.id,
          user: userId,
          discussion: spaceId,
          amount: record.amount,
          currency: record.currency,
          paid_days: days,
          applied_ms: extended.applied_ms,
          excess_ms: extended.excess_ms,
          reason: extended.reason ?? "past_the_limit",
        },
        "stripe: an extension paid for more than could be applied; refund the excess",
      );
    }
    return { status: "granted" };
  }

  async function customerFor(user: User): Promise<string> {
    const known = await payments.customerOf(user.id);
    if (known) return known;
    const created = await calling("creating a customer", () => stripe.createCustomer(user.id, user.email));
    return payments.saveCustomer(user.id, created, clock.now());
  }

  return {
    /**
     * Before the account is deleted: its subscriptions end at Stripe now, so nobody is charged for an account that
     * is gone. A Stripe that cannot be reached stops the deletion (502), with nothing deleted yet.
     */
    async cancelSubscriptionsOf(userId: string): Promise<void> {
      for (const id of await payments.liveSubscriptionsOf(userId)) {
        await calling("cancelling a subscription", () => stripe.cancelSubscription(id));
        await payments.saveSubscriptionStatus(id, "canceled", clock.now());
      }
    },

    /** Stripe Checkout for Premium monthly; refused to someone already on Premium. */
    async checkoutPremium(userId: string, appUrl: string): Promise<{ url: string }> {
      const user = await loadUser(users, userId);
      if (!user) throw notFound("user");
      if (user.subscription_type_id === PREMIUM_TYPE_ID) throw conflict("already_premium", "You are on Premium already.");
      const customer = await customerFor(user);
      const session = await calling("starting a checkout", () =>
        stripe.createCheckout({
          mode: "subscription",
          price: config.prices.premiumMonthly,
          userId,
          customer,
          metadata: { kind: "premium", user_id: userId },
          successUrl: `${appUrl}/dashboard/plan?checkout={CHECKOUT_SESSION_ID}`,
          cancelUrl: `${appUrl}/dashboard/plan`,
        }),
      );
      return { url: session.url };
    },

    /** Stripe Checkout for a discussion's extension, after the same checks as a Premium member's Extend. */
    async checkoutExtension(userId: string, spaceId: string, days: DiscussionExtensionDays, appUrl: string): Promise<{ url: string }> {
      await deps.discussions.assertExtendable(userId, spaceId, days);
      const back = `${appUrl}/discussions/${encodeURIComponent(spaceId)}`;
      const session = await calling("starting a checkout", () =>
        stripe.createCheckout({
          mode: "payment",
          price: extensionPrice(days),
          userId,
          metadata: { kind: "extension", user_id: userId, discussion_id: spaceId, days: String(days) },
          successUrl: `${back}?checkout={CHECKOUT_SESSION_ID}`,
          cancelUrl: back,
        }),
      );
      return { url: session.url };
    },

    /** Stripe's billing portal for the user's customer. */
    async portal(userId: string, appUrl: string): Promise<{ url: string }> {
      const customer = await payments.customerOf(userId);
      if (!customer) throw notFound("subscription to manage");
      return { url: await calling("opening the billing portal", () => stripe.createPortal(customer, `${appUrl}/dashboard/plan`)) };
    },

    /** The success page: the session re-read from Stripe, granted like its webhook would (once between them). */
    async confirm(userId: string, sessionId: string): Promise<PaymentCheckoutResult> {
      const session = await calling("reading a checkout", () => stripe.checkoutSession(sessionId));
      if (!session || session.client_reference_id !== userId) throw notFound("checkout");
      return grantCheckout(session, undefined);
    },

    /** A verified webhook event; a repeated one grants nothing more. */
    async handleEvent(event: StripeEvent): Promise<void> {
      switch (event.type) {
        case "checkout.session.completed":
        case "checkout.session.async_payment_succeeded": {
          const session = await stripe.checkoutSession(event.data.object.id);
          if (session) await grantCheckout(session, event);
          else {
            log.warn({ session: event.data.object.id }, "stripe: an event for a checkout session Stripe does not know");
            await storeEvent(event);
          }
          return;
        }
        case "customer.subscription.created":
        case "customer.subscription.updated":
        case "customer.subscription.deleted":
        case "customer.subscription.paused":
        case "customer.subscription.resumed":
          await applySubscription(await stripe.subscription(event.data.object.id), event);
          return;
        default:
          await storeEvent(event);
      }
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

/** Subscriptions: Free at registration and renewed when it runs out; Premium granted by an operator. */
import { FREE_PLAN, FREE_TYPE_ID, PREMIUM_PLAN, PREMIUM_TYPE_ID, type RetentionChoice, type User } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { forbidden, notFound } from "../../http/errors.ts";
import type { PlansRepository } from "./plans.repository.ts";

export type PlanName = "free" | "premium";

/**
 * What plans asks of the accounts. Accounts sit above plans (an account is made with its plan), so the composition
 * root hands plans the accounts' users repository, known here by what plans asks of it, and their `user.updated`.
 */
export interface PlanHolders {
  in(trx: Transaction<Database>): PlanHolders;
  idByEmail(email: string): Promise<string | undefined>;
  /** The accounts' row points at the user's current subscription. */
  setCurrentPlan(userId: string, subscriptionId: string, now: number): Promise<void>;
}

export function createPlansService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  plans: PlansRepository;
  users: PlanHolders;
  /** The accounts module's one way of recording `user.updated` (`recordUserUpdated`). */
  userUpdated: (work: Work, userId: string) => Promise<User | undefined>;
}) {
  const { clock, unitOfWork, plans, users } = deps;

  /** Records that the user (their plan) changed, as it now is in the work's transaction. */
  async function recordUpdated(work: Work, userId: string): Promise<User> {
    const user = await deps.userUpdated(work, userId);
    if (!user) throw notFound("user");
    return user;
  }

  /** Starts a subscription and makes it the user's current one. */
  async function start(
    work: Work,
    userId: string,
    typeId: number,
    now: number,
    options: { expiresAt?: number; paymentMode?: string } = {},
  ) {
    const id = await plans.in(work.trx).startSubscription(userId, typeId, now, undefined, options);
    await users.in(work.trx).setCurrentPlan(userId, id, now);
  }

  async function changeSubscription(
    userId: string,
    typeId: number,
    options: { expiresAt?: number; paymentMode?: string } = {},
  ): Promise<User> {
    const now = clock.now();
    return unitOfWork.forUser(userId, async (work) => {
      await start(work, userId, typeId, now, options);
      return recordUpdated(work, userId);
    });
  }

  return {
    /** Operator command: grant Premium (for the plan's term, or until `expiresAt`) or return to Free. */
    async setPlan(email: string, plan: PlanName, expiresAt?: number): Promise<User> {
      const id = await users.idByEmail(email.trim().toLowerCase());
      if (!id) throw notFound("user with that email");
      if (plan === "premium" && expiresAt !== undefined)
        return changeSubscription(id, PREMIUM_TYPE_ID, { expiresAt, paymentMode: "admin" });
      return changeSubscription(id, plan === "premium" ? PREMIUM_TYPE_ID : FREE_TYPE_ID);
    },

    /** An admin grants Premium until `expiresAt` (ms); the person's devices see it at once. */
    grantPremium(userId: string, expiresAt: number): Promise<User> {
      return changeSubscription(userId, PREMIUM_TYPE_ID, { expiresAt, paymentMode: "admin" });
    },

    /** An admin ends Premium now: back to Free, with Free's retention. */
    endPremium(userId: string): Promise<User> {
      return changeSubscription(userId, FREE_TYPE_ID);
    },

    /** A Premium user picks how long messages live. */
    async setRetention(userId: string, retention: RetentionChoice): Promise<User> {
      const sub = await plans.currentPlanOf(userId);
      if (!sub) throw new Error(`User ${userId} has no current subscription.`);
      if (sub.subscription_type_id !== PREMIUM_TYPE_ID) throw forbidden(`Choosing the retention needs the ${PREMIUM_PLAN.title}.`);
      return unitOfWork.forUser(userId, async (work) => {
        await plans.in(work.trx).setRetention(sub.id, retention);
        return recordUpdated(work, userId);
      });
    },

    /** Renews expired Free subscriptions and moves expired Premium ones back to Free. */
    async renewExpired(): Promise<number> {
      const now = clock.now();
      const expired = await plans.usersWithExpiredPlan(now, 500);
      let renewed = 0;
      for (const id of expired) {
        // Another process's sweep may have renewed it since the look-up: checked again under the user's lock.
        const done = await unitOfWork.forUser(id, async (work) => {
          const locked = plans.in(work.trx);
          const plan = await locked.currentPlanOf(id);
          if (!plan || Number(plan.date_expiration_subscription) > now) return false;
          await start(work, id, FREE_PLAN.id, now);
          await recordUpdated(work, id);
          return true;
        });
        if (done) renewed++;
      }
      return renewed;
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;

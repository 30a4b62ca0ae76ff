/** Subscriptions: Free at registration and renewed when it runs out; Premium granted by an operator. */
import { FREE_PLAN, FREE_TYPE_ID, PREMIUM_PLAN, PREMIUM_TYPE_ID, type RetentionChoice, type User } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { inUserTransaction } from "../../db/user-transaction.ts";
import type { ChangesRepository } from "../../events/changes.repository.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { forbidden, notFound } from "../../http/errors.ts";
import { loadUser } from "../accounts/user.presenter.ts";
import type { UsersRepository } from "../accounts/users.repository.ts";
import type { PlansRepository } from "./plans.repository.ts";

export type PlanName = "free" | "premium";

export function createPlansService(deps: {
  db: Db;
  clock: Clock;
  bus: EventBus;
  plans: PlansRepository;
  users: UsersRepository;
  changes: ChangesRepository;
}) {
  const { db, clock, bus, plans, users, changes } = deps;

  async function changeSubscription(userId: string, typeId: number, retention?: number | null): Promise<User> {
    const now = clock.now();
    const seq = await inUserTransaction(db, userId, async (trx) => {
      await plans.in(trx).startSubscription(userId, typeId, now, retention);
      return changes.in(trx).append(userId, "user.updated", userId, now);
    });
    const user = await loadUser(users, userId);
    if (!user) throw notFound("user");
    bus.publish("change", { userId, seq, event: { kind: "user.updated", user } });
    return user;
  }

  return {
    /** Operator command: grant Premium or return to Free. */
    async setPlan(email: string, plan: PlanName): Promise<User> {
      const id = await users.idByEmail(email.trim().toLowerCase());
      if (!id) throw notFound("user with that email");
      return changeSubscription(id, plan === "premium" ? PREMIUM_TYPE_ID : FREE_TYPE_ID);
    },

    /** A Premium user picks how long messages live. */
    async setRetention(userId: string, retention: RetentionChoice): Promise<User> {
      const now = clock.now();
      const sub = await plans.currentPlanOf(userId);
      if (!sub) throw new Error(`User ${userId} has no current subscription.`);
      if (sub.subscription_type_id !== PREMIUM_TYPE_ID) throw forbidden(`Choosing the retention needs the ${PREMIUM_PLAN.title}.`);
      const seq = await inUserTransaction(db, userId, async (trx) => {
        await plans.in(trx).setRetention(sub.id, retention);
        return changes.in(trx).append(userId, "user.updated", userId, now);
      });
      const user = await loadUser(users, userId);
      if (!user) throw notFound("user");
      bus.publish("change", { userId, seq, event: { kind: "user.updated", user } });
      return user;
    },

    /** Renews expired Free subscriptions and moves expired Premium ones back to Free. */
    async renewExpired(): Promise<number> {
      const now = clock.now();
      const expired = await plans.usersWithExpiredPlan(now, 500);
      let renewed = 0;
      for (const id of expired) {
        // Another process's sweep may have renewed it since the look-up: checked again under the user's lock.
        const seq = await inUserTransaction(db, id, async (trx) => {
          const locked = plans.in(trx);
          const plan = await locked.currentPlanOf(id);
          if (!plan || Number(plan.date_expiration_subscription) > now) return undefined;
          await locked.startSubscription(id, FREE_PLAN.id, now);
          return changes.in(trx).append(id, "user.updated", id, now);
        });
        if (seq === undefined) continue;
        renewed++;
        const user = await loadUser(users, id);
        if (user) bus.publish("change", { userId: id, seq, event: { kind: "user.updated", user } });
      }
      return renewed;
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;

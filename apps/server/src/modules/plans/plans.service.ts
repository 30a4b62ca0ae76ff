/** Subscriptions: Free at registration and renewed when it runs out; Premium granted by an operator. */
import { randomUUID } from "node:crypto";
import { DAY_MS, FREE_PLAN, FREE_TYPE_ID, PREMIUM_PLAN, PREMIUM_TYPE_ID, type RetentionChoice, type User } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";
import { inUserTransaction } from "../../db/user-transaction.ts";
import { appendChange } from "../../events/changes.repository.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { forbidden, notFound } from "../../http/errors.ts";
import { loadUser } from "../accounts/user.presenter.ts";

export type PlanName = "free" | "premium";

/** Creates a subscription of the given type for the user and makes it their current one. */
export async function startSubscription(
  trx: Transaction<Database>,
  userId: string,
  typeId: number,
  now: number,
  retention?: number | null,
): Promise<string> {
  const type = await trx.selectFrom("subscriptions_types").selectAll().where("id", "=", typeId).executeTakeFirstOrThrow();
  const id = randomUUID();
  await trx
    .insertInto("subscriptions")
    .values({
      id,
      user_id: userId,
      subscription_type_id: type.id,
      title_subscription: type.title,
      description_subscription: type.description,
      max_message_duration: retention === undefined ? type.max_message_duration : retention,
      price_per_month: Number(type.price_per_month),
      subscription_duration: type.subscription_duration,
      date_subscription: now,
      date_expiration_subscription: now + type.subscription_duration * DAY_MS,
      paid: 1,
      id_transaction: "",
      payment_mode: "",
      created_at: now,
    })
    .execute();
  await trx.updateTable("users").set({ actual_subscription_id: id, updated_at: now }).where("id", "=", userId).execute();
  return id;
}

async function hasExpiredSubscription(trx: Transaction<Database>, userId: string, now: number): Promise<boolean> {
  const row = await trx
    .selectFrom("users")
    .innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id")
    .select("users.id")
    .where("users.id", "=", userId)
    .where("subscriptions.date_expiration_subscription", "<=", now)
    .executeTakeFirst();
  return row !== undefined;
}

export function createPlansService(deps: { db: Db; clock: Clock; bus: EventBus }) {
  const { db, clock, bus } = deps;

  async function changeSubscription(userId: string, typeId: number, retention?: number | null): Promise<User> {
    const now = clock.now();
    const seq = await inUserTransaction(db, userId, async (trx) => {
      await startSubscription(trx, userId, typeId, now, retention);
      return appendChange(trx, userId, "user.updated", userId, now);
    });
    const user = await loadUser(db, userId);
    if (!user) throw notFound("user");
    bus.publish("change", { userId, seq, event: { kind: "user.updated", user } });
    return user;
  }

  return {
    /** Operator command: grant Premium or return to Free. */
    async setPlan(email: string, plan: PlanName): Promise<User> {
      const row = await db.selectFrom("users").select("id").where("email", "=", email.trim().toLowerCase()).executeTakeFirst();
      if (!row) throw notFound("user with that email");
      return changeSubscription(row.id, plan === "premium" ? PREMIUM_TYPE_ID : FREE_TYPE_ID);
    },

    /** A Premium user picks how long messages live. */
    async setRetention(userId: string, retention: RetentionChoice): Promise<User> {
      const now = clock.now();
      const sub = await db
        .selectFrom("users")
        .innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id")
        .select(["subscriptions.id", "subscriptions.subscription_type_id"])
        .where("users.id", "=", userId)
        .executeTakeFirstOrThrow();
      if (sub.subscription_type_id !== PREMIUM_TYPE_ID) throw forbidden(`Choosing the retention needs the ${PREMIUM_PLAN.title}.`);
      const seq = await inUserTransaction(db, userId, async (trx) => {
        await trx.updateTable("subscriptions").set({ max_message_duration: retention }).where("id", "=", sub.id).execute();
        return appendChange(trx, userId, "user.updated", userId, now);
      });
      const user = await loadUser(db, userId);
      if (!user) throw notFound("user");
      bus.publish("change", { userId, seq, event: { kind: "user.updated", user } });
      return user;
    },

    /** Renews expired Free subscriptions and moves expired Premium ones back to Free. */
    async renewExpired(): Promise<number> {
      const now = clock.now();
      const expired = await db
        .selectFrom("users")
        .innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id")
        .select(["users.id"])
        .where("subscriptions.date_expiration_subscription", "<=", now)
        .limit(500)
        .execute();
      let renewed = 0;
      for (const { id } of expired) {
        // Another process's sweep may have renewed it since the look-up: checked again under the user's lock.
        const seq = await inUserTransaction(db, id, async (trx) => {
          if (!(await hasExpiredSubscription(trx, id, now))) return undefined;
          await startSubscription(trx, id, FREE_PLAN.id, now);
          return appendChange(trx, id, "user.updated", id, now);
        });
        if (seq === undefined) continue;
        renewed++;
        const user = await loadUser(db, id);
        if (user) bus.publish("change", { userId: id, seq, event: { kind: "user.updated", user } });
      }
      return renewed;
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;

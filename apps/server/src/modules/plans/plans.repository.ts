/**
 * Subscriptions, and the plan a user is on: the subscription `users.actual_subscription_id` points at.
 * The join behind "the current plan of a user" is written here once (`usersWithCurrentPlan`).
 */
import { randomUUID } from "node:crypto";
import { DAY_MS } from "@daysync/shared";
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, SubscriptionsTable } from "../../db/schema.ts";

/** Users joined to their current subscription; every query about the plan users are on starts from it. */
export function usersWithCurrentPlan(db: Db) {
  return db.selectFrom("users").innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id");
}

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createPlansRepository(db: Db) {
  /** The user's current subscription; undefined when there is no such user. */
  function currentPlanOf(userId: string): Promise<SubscriptionsTable | undefined> {
    return usersWithCurrentPlan(db).selectAll("subscriptions").where("users.id", "=", userId).executeTakeFirst();
  }

  return {
    in: (trx: Transaction<Database>) => createPlansRepository(trx),
    currentPlanOf,

    /** Minutes the user's messages live (null: unlimited, or no such user). */
    async retentionOf(userId: string): Promise<number | null> {
      const plan = await currentPlanOf(userId);
      return plan?.max_message_duration == null ? null : Number(plan.max_message_duration);
    },

    /** Marks a subscription row as paid through Stripe, until the end of the period paid for (the payments module). */
    async markPaidByStripe(subscriptionRowId: string, stripeSubscriptionId: string, until: number): Promise<void> {
      await db
        .updateTable("subscriptions")
        .set({ payment_mode: "stripe", id_transaction: stripeSubscriptionId, paid: 1, date_expiration_subscription: until })
        .where("id", "=", subscriptionRowId)
        .execute();
    },

    /**
     * Creates a subscription of the given type for the user; it ends after the type's duration unless
     * `options.expiresAt` says when. `options.paymentMode` tells how it came ("admin": granted on /admin). The caller
     * makes it their current one, on the account's row (the accounts module's `setCurrentPlan`), in the same work.
     */
    async startSubscription(
      userId: string,
      typeId: number,
      now: number,
      retention?: number | null,
      options: { expiresAt?: number; paymentMode?: string } = {},
    ): Promise<string> {
      const type = await db.selectFrom("subscriptions_types").selectAll().where("id", "=", typeId).executeTakeFirstOrThrow();
      const id = randomUUID();
      await db
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
          date_expiration_subscription: options.expiresAt ?? now + type.subscription_duration * DAY_MS,
          paid: 1,
          id_transaction: "",
          payment_mode: options.paymentMode ?? "",
          created_at: now,
        })
        .execute();
      return id;
    },

    async setRetention(subscriptionId: string, minutes: number | null): Promise<void> {
      await db.updateTable("subscriptions").set({ max_message_duration: minutes }).where("id", "=", subscriptionId).execute();
    },

    /** Up to `limit` users whose current subscription has run out at `now`. */
    async usersWithExpiredPlan(now: number, limit: number): Promise<string[]> {
      const rows = await usersWithCurrentPlan(db)
        .select("users.id")
        .where("subscriptions.date_expiration_subscription", "<=", now)
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /** The distinct limited retentions (minutes) of the plans users are on now. */
    async retentionsInUse(): Promise<number[]> {
      const rows = await usersWithCurrentPlan(db)
        .select("subscriptions.max_message_duration as minutes")
        .where("subscriptions.max_message_duration", "is not", null)
        .distinct()
        .execute();
      return rows.map((row) => Number(row.minutes));
    },

    /**
     * Up to `limit` messages created before `cutoff` in the personal spaces (ids: their owners') of users whose plan
     * keeps messages `minutes` long. A discussion's messages live as long as the discussion.
     */
    expiredMessages(minutes: number, cutoff: number, limit: number): Promise<{ id: string; space_id: string }[]> {
      return db
        .selectFrom("messages")
        .select(["messages.id", "messages.space_id"])
        .where("messages.created_at", "<", cutoff)
        .where(
          "messages.space_id",
          "in",
          usersWithCurrentPlan(db).select("users.id").where("subscriptions.max_message_duration", "=", minutes),
        )
        .limit(limit)
        .execute();
    },
  };
}

export type PlansRepository = ReturnType<typeof createPlansRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's subscriptions, once none is its current one. */
export async function erasePlansOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("subscriptions").where("user_id", "=", userId).execute();
}

/** Web Push subscriptions, one per device (session); deleting the session deletes them. */
import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, PushSubscriptionsTable } from "../../db/schema.ts";

export type PushSubscriptionRow = PushSubscriptionsTable;

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createPushSubscriptionsRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createPushSubscriptionsRepository(trx),

    /**
     * One endpoint belongs to one device: subscribing again (after a new sign-in) moves it to this session.
     * An endpoint another user holds never changes hands; returns false then, storing nothing.
     */
    async upsert(
      sub: { userId: string; sessionId: string; endpoint: string; p256dh: string; auth: string },
      now: number,
    ): Promise<boolean> {
      const values = { user_id: sub.userId, session_id: sub.sessionId, p256dh: sub.p256dh, auth: sub.auth };
      const result = await db
        .insertInto("push_subscriptions")
        .values({ id: randomUUID(), endpoint: sub.endpoint, created_at: now, ...values })
        .onConflict((oc) => oc.column("endpoint").doUpdateSet(values).where("push_subscriptions.user_id", "=", sub.userId))
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async removeForUser(userId: string, endpoint: string): Promise<void> {
      await db.deleteFrom("push_subscriptions").where("user_id", "=", userId).where("endpoint", "=", endpoint).execute();
    },

    async removeById(id: string): Promise<void> {
      await db.deleteFrom("push_subscriptions").where("id", "=", id).execute();
    },

    /** The user's subscriptions, one per device that has one. */
    listForUser(userId: string): Promise<PushSubscriptionRow[]> {
      return db.selectFrom("push_subscriptions").selectAll().where("user_id", "=", userId).execute();
    },
  };
}

export type PushSubscriptionsRepository = ReturnType<typeof createPushSubscriptionsRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's push subscriptions. */
export async function erasePushSubscriptionsOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("push_subscriptions").where("user_id", "=", userId).execute();
}

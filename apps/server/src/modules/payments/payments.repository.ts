/** What payments keep: Stripe events handled, customers, subscriptions as last read, and granted checkouts. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, PaymentCheckoutsTable } from "../../db/schema.ts";

/** Over the database, or over a transaction (`.in(trx)`) so that a claim commits with what it grants. */
export function createPaymentsRepository(db: Db) {
  async function customerOf(userId: string): Promise<string | undefined> {
    const row = await db.selectFrom("payment_customers").select("customer_id").where("user_id", "=", userId).executeTakeFirst();
    return row?.customer_id;
  }

  return {
    in: (trx: Transaction<Database>) => createPaymentsRepository(trx),

    /** Stores the event's id; false when it was stored before (a repeated delivery). */
    async claimEvent(id: string, type: string, now: number): Promise<boolean> {
      const row = await db
        .insertInto("payment_events")
        .values({ id, type, received_at: now })
        .onConflict((oc) => oc.column("id").doNothing())
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Stores a granted checkout; false when it was granted before (by the webhook or the success page). */
    async claimCheckout(checkout: PaymentCheckoutsTable): Promise<boolean> {
      const row = await db
        .insertInto("payment_checkouts")
        .values(checkout)
        .onConflict((oc) => oc.column("id").doNothing())
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },

    customerOf,

    async userOfCustomer(customerId: string): Promise<string | undefined> {
      const row = await db.selectFrom("payment_customers").select("user_id").where("customer_id", "=", customerId).executeTakeFirst();
      return row?.user_id;
    },

    /** Keeps the first customer stored for the user (two checkouts started at once make one each). */
    async saveCustomer(userId: string, customerId: string, now: number): Promise<string> {
      await db
        .insertInto("payment_customers")
        .values({ user_id: userId, customer_id: customerId, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return (await customerOf(userId)) ?? customerId;
    },

    async userOfSubscription(subscriptionId: string): Promise<string | undefined> {
      const row = await db.selectFrom("payment_subscriptions").select("user_id").where("id", "=", subscriptionId).executeTakeFirst();
      return row?.user_id;
    },

    /** The account's subscriptions that may still charge it (any status but ended). */
    async liveSubscriptionsOf(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("payment_subscriptions")
        .select("id")
        .where("user_id", "=", userId)
        .where("status", "not in", ["canceled", "incomplete_expired"])
        .execute();
      return rows.map((r) => r.id);
    },

    async saveSubscriptionStatus(id: string, status: string, now: number): Promise<void> {
      await db.updateTable("payment_subscriptions").set({ status, updated_at: now }).where("id", "=", id).execute();
    },

    async saveSubscription(row: { id: string; user_id: string; status: string; current_period_end: number; updated_at: number }) {
      await db
        .insertInto("payment_subscriptions")
        .values(row)
        .onConflict((oc) =>
          oc.column("id").doUpdateSet({ status: row.status, current_period_end: row.current_period_end, updated_at: row.updated_at }),
        )
        .execute();
    },
  };
}

export type PaymentsRepository = ReturnType<typeof createPaymentsRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's checkouts, subscriptions and customer at the provider. */
export async function erasePaymentsOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("payment_checkouts").where("user_id", "=", userId).execute();
  await db.deleteFrom("payment_subscriptions").where("user_id", "=", userId).execute();
  await db.deleteFrom("payment_customers").where("user_id", "=", userId).execute();
}

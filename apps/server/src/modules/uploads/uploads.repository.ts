import type { Db } from "../../db/database.ts";
import type { UploadsTable } from "../../db/schema.ts";

export function createUploadsRepository(db: Db) {
  return {
    async insert(row: UploadsTable): Promise<void> {
      await db
        .insertInto("uploads")
        .values(row)
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
    },
    /** A finished upload, only if it belongs to the user. */
    findOwned(id: string, userId: string): Promise<UploadsTable | undefined> {
      return db.selectFrom("uploads").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    },
    async takeForMessages(messageIds: string[]): Promise<string[]> {
      if (messageIds.length === 0) return [];
      const rows = await db.selectFrom("uploads").select("id").where("message_id", "in", messageIds).execute();
      if (rows.length) await db.deleteFrom("uploads").where("message_id", "in", messageIds).execute();
      return rows.map((r) => r.id);
    },
    async planOf(userId: string): Promise<number | undefined> {
      const row = await db
        .selectFrom("users")
        .innerJoin("subscriptions", "subscriptions.id", "users.actual_subscription_id")
        .select("subscriptions.subscription_type_id")
        .where("users.id", "=", userId)
        .executeTakeFirst();
      return row?.subscription_type_id;
    },
  };
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>;

/** Finished uploads (files of file messages); every query that takes an id from a client is scoped to its user. */
import type { Db } from "../../db/database.ts";
import type { UploadsTable } from "../../db/schema.ts";
import { createPlansRepository } from "../plans/plans.repository.ts";

export function createUploadsRepository(db: Db) {
  const plans = createPlansRepository(db);

  /** Finished uploads of the user whose message is live: it exists and is within the plan's retention at `now`. */
  async function liveFiles(userId: string, now: number) {
    const minutes = await plans.retentionOf(userId);
    let q = db
      .selectFrom("uploads")
      .innerJoin("messages", (join) =>
        join.onRef("messages.id", "=", "uploads.message_id").onRef("messages.user_id", "=", "uploads.user_id"),
      )
      .where("uploads.user_id", "=", userId);
    if (minutes !== null) q = q.where("messages.created_at", ">=", now - minutes * 60_000);
    return q;
  }

  return {
    async insert(row: UploadsTable): Promise<void> {
      await db
        .insertInto("uploads")
        .values(row)
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
    },
    /** A finished upload, only if it belongs to the user (live or not). */
    findOwned(id: string, userId: string): Promise<UploadsTable | undefined> {
      return db.selectFrom("uploads").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    },
    /** A finished upload of the user whose message has not expired at `now`. */
    async findLive(id: string, userId: string, now: number): Promise<UploadsTable | undefined> {
      return (await liveFiles(userId, now)).selectAll("uploads").where("uploads.id", "=", id).executeTakeFirst();
    },
    /** Bytes of the user's live files at `now`. */
    async liveBytes(userId: string, now: number): Promise<number> {
      const row = await (await liveFiles(userId, now))
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("uploads.size"), eb.lit(0)).as("bytes"))
        .executeTakeFirst();
      return Number(row?.bytes ?? 0);
    },
    /** Who holds a message id, if anyone: message ids are one namespace for all users. */
    async messageOwner(messageId: string): Promise<string | undefined> {
      const row = await db.selectFrom("messages").select("user_id").where("id", "=", messageId).executeTakeFirst();
      return row?.user_id;
    },
    /** Forgets one upload, only if it belongs to the user. */
    async remove(id: string, userId: string): Promise<void> {
      await db.deleteFrom("uploads").where("id", "=", id).where("user_id", "=", userId).execute();
    },
    /**
     * Forgets the uploads of these messages that no longer have their message (of the same user), and returns
     * their ids. An upload whose message id another user's live message carries is never touched.
     */
    async takeOrphaned(messageIds: string[]): Promise<string[]> {
      if (messageIds.length === 0) return [];
      const rows = await db
        .selectFrom("uploads")
        .select("id")
        .where("message_id", "in", messageIds)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("messages")
                .select("messages.id")
                .whereRef("messages.id", "=", "uploads.message_id")
                .whereRef("messages.user_id", "=", "uploads.user_id"),
            ),
          ),
        )
        .execute();
      const ids = rows.map((r) => r.id);
      if (ids.length) await db.deleteFrom("uploads").where("id", "in", ids).execute();
      return ids;
    },
  };
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>;

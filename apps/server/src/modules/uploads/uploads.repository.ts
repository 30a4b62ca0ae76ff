/**
 * Finished uploads (files of file messages). An upload belongs to a space (the uploader's personal space, or a
 * discussion): who may read it is the access repository's answer for that space, asked by the service.
 */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { UploadsTable } from "../../db/schema.ts";
import { createPlansRepository } from "../plans/index.ts";

export function createUploadsRepository(db: Db) {
  const plans = createPlansRepository(db);

  /** Uploads joined to their message, which must still be in the upload's space. */
  const withMessage = () =>
    db
      .selectFrom("uploads")
      .innerJoin("messages", (join) =>
        join.onRef("messages.id", "=", "uploads.message_id").onRef("messages.space_id", "=", "uploads.space_id"),
      );

  return {
    async insert(row: UploadsTable): Promise<void> {
      await db
        .insertInto("uploads")
        .values(row)
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
    },
    /** A finished upload, live or not. */
    find(id: string): Promise<UploadsTable | undefined> {
      return db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();
    },
    /**
     * A finished upload whose message is live at `now`: it exists and, in a personal space, is within its owner's
     * retention (a discussion's messages live as long as the discussion, which the access check answers for).
     */
    async findLive(id: string, now: number): Promise<UploadsTable | undefined> {
      const row = await withMessage()
        .innerJoin("spaces", "spaces.id", "uploads.space_id")
        .selectAll("uploads")
        .select(["messages.created_at as message_created_at", "spaces.kind as space_kind"])
        .where("uploads.id", "=", id)
        .executeTakeFirst();
      if (!row) return undefined;
      const { message_created_at, space_kind, ...upload } = row;
      if (space_kind === "personal") {
        const minutes = await plans.retentionOf(upload.space_id);
        if (minutes !== null && Number(message_created_at) < now - minutes * 60_000) return undefined;
      }
      return upload;
    },
    /**
     * Bytes of the files the user uploaded that are live at `now` in a space they are still a member of: in their
     * personal space within their plan's retention, in a discussion while its message is there and until the
     * discussion ends. A member removed or gone no longer holds their files there: the discussion does.
     */
    async liveBytes(userId: string, now: number): Promise<number> {
      const minutes = await plans.retentionOf(userId);
      let q = withMessage()
        .innerJoin("space_members", (join) =>
          join.onRef("space_members.space_id", "=", "uploads.space_id").onRef("space_members.user_id", "=", "uploads.user_id"),
        )
        .innerJoin("spaces", "spaces.id", "uploads.space_id")
        .where("uploads.user_id", "=", userId)
        .where("space_members.left_at", "is", null)
        .where((eb) => eb.or([eb("spaces.ends_at", "is", null), eb("spaces.ends_at", ">", now)]));
      if (minutes !== null) {
        const since = now - minutes * 60_000;
        q = q.where((eb) => eb.or([eb("uploads.space_id", "<>", userId), eb("messages.created_at", ">=", since)]));
      }
      const row = await q.select((eb) => eb.fn.coalesce(eb.fn.sum<number>("uploads.size"), sql<number>`0`).as("bytes")).executeTakeFirst();
      return Number(row?.bytes ?? 0);
    },
    /** Whether a live message has this id, in any space: message ids are one namespace for all spaces. */
    async messageIdInUse(messageId: string): Promise<boolean> {
      return (await db.selectFrom("messages").select("id").where("id", "=", messageId).executeTakeFirst()) !== undefined;
    },
    /** Forgets one upload, only if the user uploaded it. */
    async remove(id: string, userId: string): Promise<void> {
      await db.deleteFrom("uploads").where("id", "=", id).where("user_id", "=", userId).execute();
    },
    /**
     * Forgets the uploads of these messages that no longer have their message (in the same space), and returns
     * their ids. An upload whose message id another space's live message carries is never touched.
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
                .whereRef("messages.space_id", "=", "uploads.space_id"),
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

/** Account deletion (`flows/account-deletion.ts`): the account's upload rows; the ids whose bytes go once it commits. */
export async function eraseUploadsOfAccount(db: Db, userId: string): Promise<string[]> {
  const uploads = await db
    .selectFrom("uploads")
    .select("id")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  await db
    .deleteFrom("uploads")
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("space_id", "=", userId)]))
    .execute();
  return uploads.map((u) => u.id);
}

/** A discussion's upload rows, as it ends; the ids whose bytes go once that commits. For the discussions module. */
export async function eraseUploadsOfSpace(db: Db, spaceId: string): Promise<string[]> {
  const uploads = await db.selectFrom("uploads").select("id").where("space_id", "=", spaceId).execute();
  await db.deleteFrom("uploads").where("space_id", "=", spaceId).execute();
  return uploads.map((u) => u.id);
}

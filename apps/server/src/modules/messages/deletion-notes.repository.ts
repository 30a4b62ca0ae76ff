/** The sealed deletion notes of each account (`deletion-notes.routes.ts`), kept as they come. */
import type { DeletionNote } from "@daysync/shared";
import type { Db } from "../../db/database.ts";

export function createDeletionNotesRepository(db: Db) {
  return {
    /** Keeps a note; the same id again keeps nothing more (a retry). */
    async add(userId: string, note: DeletionNote, now: number): Promise<void> {
      await db
        .insertInto("deletion_notes")
        .values({ ...note, user_id: userId, created_at: now })
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
    },

    /** The account's notes of one date, oldest first. */
    ofDate(userId: string, date: string): Promise<DeletionNote[]> {
      return db
        .selectFrom("deletion_notes")
        .select(["id", "date", "device_id", "note"])
        .where("user_id", "=", userId)
        .where("date", "=", date)
        .orderBy("created_at")
        .execute();
    },
  };
}

export type DeletionNotesRepository = ReturnType<typeof createDeletionNotesRepository>;

/** One-time invite links to register: only the SHA-256 of a link's token is stored. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createInvitesRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createInvitesRepository(trx),

    async insert(row: Database["invites"]): Promise<void> {
      await db.insertInto("invites").values(row).execute();
    },

    /** Whether an invite of this hash is unused and still valid at `now`. */
    async isUsable(tokenHash: string, now: number): Promise<boolean> {
      const row = await db
        .selectFrom("invites")
        .select("id")
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Uses up the invite for `userId` if it is still unused and valid at `now`; false otherwise (one use wins a race). */
    async consume(tokenHash: string, userId: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable("invites")
        .set({ used_at: now, used_by: userId })
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Whether any account exists: the default registration mode closes to invites after the first. */
    async anyAccount(): Promise<boolean> {
      return (await db.selectFrom("users").select("id").limit(1).executeTakeFirst()) !== undefined;
    },
  };
}

export type InvitesRepository = ReturnType<typeof createInvitesRepository>;

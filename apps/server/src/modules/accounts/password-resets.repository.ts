/** One-time reset links: only the sha256 of a link's token is stored. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createPasswordResetsRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createPasswordResetsRepository(trx),

    async insert(row: Database["password_resets"]): Promise<void> {
      await db.insertInto("password_resets").values(row).execute();
    },

    /**
     * Uses up the link of this token hash if it is still valid at `now`: the user's id, and every link of that
     * user is gone (a link works once, and a newer one does not outlive the password it replaced). Undefined otherwise.
     */
    async consume(tokenHash: string, now: number): Promise<string | undefined> {
      const row = await db
        .selectFrom("password_resets")
        .select(["user_id", "expires_at"])
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const deleted = await db.deleteFrom("password_resets").where("token_hash", "=", tokenHash).executeTakeFirst();
      // Another request used it between the two statements: it counts once.
      if (Number(deleted.numDeletedRows) === 0 || Number(row.expires_at) <= now) return undefined;
      await db.deleteFrom("password_resets").where("user_id", "=", row.user_id).execute();
      return row.user_id;
    },

    async removeExpired(now: number): Promise<void> {
      await db.deleteFrom("password_resets").where("expires_at", "<=", now).execute();
    },
  };
}

/** Deletes every reset link of the account: its password or address changed, and a link must not outlive them (issue 42). */
export async function deleteResetLinksOf(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("password_resets").where("user_id", "=", userId).execute();
}

export type PasswordResetsRepository = ReturnType<typeof createPasswordResetsRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's reset links. */
export async function erasePasswordResetsOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("password_resets").where("user_id", "=", userId).execute();
}

/** Transactions that change a user's data and append to their change log. */
import type { Transaction } from "kysely";
import type { Db } from "./database.ts";
import type { Database } from "./schema.ts";

/**
 * Runs `work` in a transaction that first locks the user's row. Every transaction that appends changes
 * starts here, so on PostgreSQL a user's changes run one at a time and every one takes the user's row lock
 * before any other (no deadlock between them), and `users.seq` hands out numbers in commit order without gaps.
 * On SQLite the write takes the database's write lock at once, instead of upgrading a read lock later.
 */
export function inUserTransaction<T>(db: Db, userId: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set((eb) => ({ seq: eb.ref("seq") }))
      .where("id", "=", userId)
      .execute();
    return work(trx);
  });
}

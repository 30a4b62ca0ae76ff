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

/**
 * Runs `work` in a transaction over a shared space (a discussion) whose changes go to every member's log
 * (decision 016). It locks the space's row first, so the space's own changes (messages, joins, leaves) run one
 * at a time and its member list cannot change underneath; then each active member's user row in id order, so
 * two spaces with members in common lock them in the same order and never deadlock. Nothing may lock a user
 * row and then a space row. `work` gets the active members' user ids, sorted; none if the space is gone.
 * `joining`: a user about to become a member (a join), whose row is locked in the same id order with the others
 * (and is not in `memberIds` unless already a member).
 */
export function inSpaceTransaction<T>(
  db: Db,
  spaceId: string,
  work: (trx: Transaction<Database>, memberIds: string[]) => Promise<T>,
  options: { joining?: string } = {},
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const space = await trx
      .updateTable("spaces")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", spaceId)
      .returning("id")
      .executeTakeFirst();
    if (!space) return work(trx, []);
    const members = await trx
      .selectFrom("space_members")
      .select("user_id")
      .where("space_id", "=", spaceId)
      .where("left_at", "is", null)
      .orderBy("user_id")
      .execute();
    const memberIds = members.map((m) => m.user_id);
    const { joining } = options;
    // Sorted here, not by the database's collation (which may ignore the hyphens), so every caller agrees.
    const locked = [...new Set(joining ? [...memberIds, joining] : memberIds)].sort();
    for (const userId of locked) {
      await trx
        .updateTable("users")
        .set((eb) => ({ seq: eb.ref("seq") }))
        .where("id", "=", userId)
        .execute();
    }
    return work(trx, memberIds);
  });
}

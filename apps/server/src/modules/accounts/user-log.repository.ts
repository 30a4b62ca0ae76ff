/**
 * The feed's writes to the rows this module owns (issue 44): a user's change sequence lives on `users`, and the row's
 * lock orders every transaction that appends to their log. The feed ranks below accounts, so the composition root
 * hands it these; each runs on the database or transaction it is given.
 */
import { sql } from "kysely";
import { compiledOnce } from "../../db/compiled-query.ts";
import type { Db } from "../../db/database.ts";
import type { UserLogRows } from "../../feed/changes.repository.ts";

/** The minutes the user's messages live on their current plan (null: unlimited), as a column of a statement on `users`. */
const retentionMinutesOfUserRow = sql<
  number | null
>`(select subscriptions.max_message_duration from subscriptions where subscriptions.id = users.actual_subscription_id)`;

type ClaimRow = { seq: number; minutes: number | null; key_epoch: number | null; key_rotation_due_at: number | null };
// The send's statement, built once (see `compiledOnce`).
const claimQuery = compiledOnce<"userId", ClaimRow>(
  (_db, p) => sql<ClaimRow>`update users set seq = seq + 1 where id = ${p.userId}
    returning seq, ${retentionMinutesOfUserRow} as minutes, key_epoch, key_rotation_due_at`,
);

export const userLogRowsOfFeed: UserLogRows = {
  async lock(db: Db, userId: string) {
    await db
      .updateTable("users")
      .set((eb) => ({ seq: eb.ref("seq") }))
      .where("id", "=", userId)
      .execute();
  },

  async claim(db: Db, userId: string) {
    const { rows } = await claimQuery(db, { userId });
    const row = rows[0];
    return (
      row && {
        seq: Number(row.seq),
        retentionMinutes: row.minutes === null ? null : Number(row.minutes),
        keyEpoch: row.key_epoch === null ? null : Number(row.key_epoch),
        keyRotationDue: row.key_rotation_due_at !== null,
      }
    );
  },

  async claimEach(db: Db, userIds: readonly string[]) {
    const rows = await db
      .updateTable("users")
      .set((eb) => ({ seq: eb("seq", "+", 1) }))
      .where("id", "in", userIds)
      .returning(["id", "seq"])
      .execute();
    return rows.map((r) => ({ userId: r.id, seq: Number(r.seq) }));
  },
};

/** The per-user change log: every change of a user's data gets the next number of that user's sequence. */
import type { Transaction } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";

export type ChangeKind =
  | "day.upserted"
  | "message.created"
  | "messages.deleted"
  | "user.updated"
  | "device.signed_in"
  | "device.signed_out";

export interface ChangeRow {
  seq: number;
  kind: ChangeKind;
  ref: string;
}

/** Appends a change inside the caller's transaction and returns its sequence number. */
export async function appendChange(
  trx: Transaction<Database>,
  userId: string,
  kind: ChangeKind,
  ref: string,
  now: number,
): Promise<number> {
  const row = await trx
    .updateTable("users")
    .set((eb) => ({ seq: eb("seq", "+", 1) }))
    .where("id", "=", userId)
    .returning("seq")
    .executeTakeFirstOrThrow();
  const seq = Number(row.seq);
  await trx.insertInto("user_events").values({ user_id: userId, seq, kind, ref, created_at: now }).execute();
  return seq;
}

/** Changes after `since`, oldest first; `complete` is false when older ones were pruned and a replay would miss some. */
export async function changesSince(
  db: Db,
  userId: string,
  since: number,
): Promise<{ rows: ChangeRow[]; current: number; complete: boolean }> {
  const user = await db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirst();
  const current = Number(user?.seq ?? 0);
  if (since >= current) return { rows: [], current, complete: since === current };
  const rows = await db
    .selectFrom("user_events")
    .select(["seq", "kind", "ref"])
    .where("user_id", "=", userId)
    .where("seq", ">", since)
    .where("seq", "<=", current)
    .orderBy("seq")
    .execute();
  const typed = rows.map((r) => ({ seq: Number(r.seq), kind: r.kind as ChangeKind, ref: r.ref }));
  const complete = typed.length === current - since && (typed[0]?.seq ?? since + 1) === since + 1;
  return { rows: typed, current, complete };
}

/** Forgets changes older than the cut-off; devices away longer than that refetch everything. */
export async function pruneChanges(db: Db, before: number): Promise<void> {
  await db.deleteFrom("user_events").where("created_at", "<", before).execute();
}

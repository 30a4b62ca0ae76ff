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

/** The sequence number of the user's newest change, 0 for none. */
export async function currentSeq(db: Db, userId: string): Promise<number> {
  const user = await db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirst();
  return Number(user?.seq ?? 0);
}

/** The newest sequence number of each of these users (users without a row are left out). */
export async function currentSeqs(db: Db, userIds: string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom("users").select(["id", "seq"]).where("id", "in", userIds).execute();
  return new Map(rows.map((r) => [r.id, Number(r.seq)]));
}

/**
 * Up to `limit` changes with `after < seq <= upTo`, oldest first. Pruned changes are simply missing:
 * the caller checks that the numbers follow on.
 */
export async function changesBetween(db: Db, userId: string, after: number, upTo: number, limit: number): Promise<ChangeRow[]> {
  const rows = await db
    .selectFrom("user_events")
    .select(["seq", "kind", "ref"])
    .where("user_id", "=", userId)
    .where("seq", ">", after)
    .where("seq", "<=", upTo)
    .orderBy("seq")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind as ChangeKind, ref: r.ref }));
}

/** Forgets changes older than the cut-off; devices away longer than that refetch everything. */
export async function pruneChanges(db: Db, before: number): Promise<void> {
  await db.deleteFrom("user_events").where("created_at", "<", before).execute();
}

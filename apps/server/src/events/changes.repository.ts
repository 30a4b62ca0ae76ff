/** The per-user change log: every change of a user's data gets the next number of that user's sequence. */
import { sql, type Transaction } from "kysely";
import { compiledOnce } from "../db/compiled-query.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { retentionMinutesOfUserRow } from "../modules/plans/plans.repository.ts";

export type ChangeKind =
  | "day.upserted"
  | "message.created"
  | "messages.deleted"
  | "user.updated"
  | "device.signed_in"
  | "device.signed_out"
  | "device.renamed"
  | "discussion.upserted"
  | "discussion.closed"
  | "discussion.message.created"
  | "discussion.messages.deleted";

export interface ChangeRow {
  seq: number;
  kind: ChangeKind;
  ref: string;
}

// The send's two statements here, built once (see `compiledOnce`).
const nextSeqAndRetentionQuery = compiledOnce<"userId", { seq: number; minutes: number | null }>(
  (_db, p) => sql<{ seq: number; minutes: number | null }>`update users set seq = seq + 1 where id = ${p.userId}
    returning seq, ${retentionMinutesOfUserRow} as minutes`,
);
const recordQuery = compiledOnce<"userId" | "seq" | "kind" | "ref" | "now", unknown>((db: Db, p) =>
  db.insertInto("user_events").values({ user_id: p.userId, seq: p.seq, kind: p.kind, ref: p.ref, created_at: p.now }),
);

// A resume's page of changes, read again and again while a device catches up.
const changesBetweenQuery = compiledOnce<"userId" | "after" | "upTo" | "limit", ChangeRow>((db: Db, p) =>
  db
    .selectFrom("user_events")
    .select(["seq", "kind", "ref"])
    .where("user_id", "=", p.userId)
    .where("seq", ">", p.after)
    .where("seq", "<=", p.upTo)
    .orderBy("seq")
    .limit(p.limit),
);

/** Over the database, or over a transaction (`.in(trx)`) for appending changes with the work they log. */
export function createChangesRepository(db: Db) {
  /** Gives the user's next sequence number (locking the user's row until the transaction ends). */
  async function nextSeq(userId: string): Promise<number> {
    const row = await db
      .updateTable("users")
      .set((eb) => ({ seq: eb("seq", "+", 1) }))
      .where("id", "=", userId)
      .returning("seq")
      .executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  /** Logs a change under a number from `nextSeq` or `nextSeqAndRetention`, in the same transaction. */
  async function record(userId: string, seq: number, kind: ChangeKind, ref: string, now: number): Promise<void> {
    await recordQuery(db, { userId, seq, kind, ref, now });
  }

  return {
    in: (trx: Transaction<Database>) => createChangesRepository(trx),
    record,

    /** Appends a change inside the caller's transaction and returns its sequence number. */
    async append(userId: string, kind: ChangeKind, ref: string, now: number): Promise<number> {
      const seq = await nextSeq(userId);
      await record(userId, seq, kind, ref, now);
      return seq;
    },

    /**
     * Logs one change to each of these users (a discussion's members, decision 016) and returns their numbers.
     * The caller holds their rows' locks, taken in id order (`inSpaceTransaction`), so the order here is free.
     */
    async appendToUsers(
      userIds: readonly string[],
      kind: ChangeKind,
      ref: string,
      now: number,
    ): Promise<Array<{ userId: string; seq: number }>> {
      if (userIds.length === 0) return [];
      const rows = await db
        .updateTable("users")
        .set((eb) => ({ seq: eb("seq", "+", 1) }))
        .where("id", "in", userIds)
        .returning(["id", "seq"])
        .execute();
      const logged = rows.map((r) => ({ userId: r.id, seq: Number(r.seq) }));
      await db
        .insertInto("user_events")
        .values(logged.map((l) => ({ user_id: l.userId, seq: l.seq, kind, ref, created_at: now })))
        .execute();
      return logged;
    },

    /**
     * `nextSeq`, and in the same statement the minutes the user's messages live on their current plan (null:
     * unlimited, or no such user: then no seq either). A send starts with it: it locks the user's row first, as
     * every transaction that appends changes does (see `inUserTransaction`), and saves the plan's look-up.
     */
    async nextSeqAndRetention(userId: string): Promise<{ seq: number; retentionMinutes: number | null } | undefined> {
      const { rows } = await nextSeqAndRetentionQuery(db, { userId });
      const row = rows[0];
      return row && { seq: Number(row.seq), retentionMinutes: row.minutes === null ? null : Number(row.minutes) };
    },

    /** The sequence number of the user's newest change, 0 for none. */
    async currentSeq(userId: string): Promise<number> {
      const user = await db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirst();
      return Number(user?.seq ?? 0);
    },

    /** The newest sequence number of each of these users (users without a row are left out). */
    async currentSeqs(userIds: string[]): Promise<Map<string, number>> {
      if (userIds.length === 0) return new Map();
      const rows = await db.selectFrom("users").select(["id", "seq"]).where("id", "in", userIds).execute();
      return new Map(rows.map((r) => [r.id, Number(r.seq)]));
    },

    /**
     * Up to `limit` changes with `after < seq <= upTo`, oldest first. Pruned changes are simply missing:
     * the caller checks that the numbers follow on.
     */
    async changesBetween(userId: string, after: number, upTo: number, limit: number): Promise<ChangeRow[]> {
      const { rows } = await changesBetweenQuery(db, { userId, after, upTo, limit });
      return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind as ChangeKind, ref: r.ref }));
    },

    /** Forgets changes older than the cut-off; devices away longer than that refetch everything. */
    async pruneChanges(before: number): Promise<void> {
      await db.deleteFrom("user_events").where("created_at", "<", before).execute();
    },
  };
}

export type ChangesRepository = ReturnType<typeof createChangesRepository>;

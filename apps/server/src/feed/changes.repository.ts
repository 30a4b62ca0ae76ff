/** The per-user change log: every change of a user's data gets the next number of that user's sequence. */
import type { Transaction } from "kysely";
import { compiledOnce } from "../db/compiled-query.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import type { Change } from "./change.ts";
import { changeOf, refOf } from "./kinds/index.ts";

/** One entry of a user's log, read back; `change` is undefined for one this version cannot read (it is skipped). */
export interface LoggedChange {
  seq: number;
  change: Change | undefined;
}

/** What a send learns with its sequence number, from the user's row it has just locked. */
export interface Claimed {
  seq: number;
  retentionMinutes: number | null;
  /** The account's current key epoch (decision 020); null before its first device made one. */
  keyEpoch: number | null;
  /** A device that held the key left and the next epoch is not made yet. */
  keyRotationDue: boolean;
}

/**
 * The feed's writes to rows other modules own, handed in by the composition root: the user's row (accounts) holds
 * their sequence and is the lock of their log; a discussion's row (spaces) is the lock of its members' logs.
 */
export interface UserLogRows {
  /** Locks the user's row until the transaction ends. */
  lock(db: Db, userId: string): Promise<void>;
  /** Takes the user's next seq and reads what a send needs from the row it has just locked; undefined: no such user. */
  claim(db: Db, userId: string): Promise<Claimed | undefined>;
  /** Takes the next seq of each of these users (those without a row are left out). */
  claimEach(db: Db, userIds: readonly string[]): Promise<Array<{ userId: string; seq: number }>>;
}

export interface SpaceLockRows {
  /** Locks a shared space's row until the transaction ends; false when there is no such space. */
  lock(db: Db, spaceId: string): Promise<boolean>;
}

export interface FeedRows {
  users: UserLogRows;
  spaces: SpaceLockRows;
}

// The log's statements, built once (see `compiledOnce`).
const recordQuery = compiledOnce<"userId" | "seq" | "kind" | "ref" | "now", unknown>((db: Db, p) =>
  db.insertInto("user_events").values({ user_id: p.userId, seq: p.seq, kind: p.kind, ref: p.ref, created_at: p.now }),
);

// A resume's page of changes, read again and again while a device catches up.
const changesBetweenQuery = compiledOnce<"userId" | "after" | "upTo" | "limit", { seq: number; kind: string; ref: string }>((db: Db, p) =>
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
export function createChangesRepository(db: Db, rows: FeedRows) {
  return {
    in: (trx: Transaction<Database>) => createChangesRepository(trx, rows),

    /** Locks the user's row until the transaction ends (the lock every writer of their log takes first). */
    lockUser: (userId: string): Promise<void> => rows.users.lock(db, userId),

    /** Locks a shared space's row; its active members' user ids, or undefined when there is no such space. */
    async lockSpace(spaceId: string): Promise<string[] | undefined> {
      if (!(await rows.spaces.lock(db, spaceId))) return undefined;
      const members = await db
        .selectFrom("space_members")
        .select("user_id")
        .where("space_id", "=", spaceId)
        .where("left_at", "is", null)
        .execute();
      return members.map((m) => m.user_id);
    },

    /** Logs a change under a number from `nextSeqAndRetention`, in the same transaction. */
    async record(userId: string, seq: number, change: Change, now: number): Promise<void> {
      await recordQuery(db, { userId, seq, kind: change.kind, ref: refOf(change), now });
    },

    /**
     * Logs one change to each of these users (a discussion's members, decision 016) and returns their numbers.
     * The caller holds their rows' locks, taken in id order (`inSpaceTransaction`), so the order here is free.
     */
    async appendToUsers(userIds: readonly string[], change: Change, now: number): Promise<Array<{ userId: string; seq: number }>> {
      if (userIds.length === 0) return [];
      const { kind } = change;
      const ref = refOf(change);
      const logged = await rows.users.claimEach(db, userIds);
      await db
        .insertInto("user_events")
        .values(logged.map((l) => ({ user_id: l.userId, seq: l.seq, kind, ref, created_at: now })))
        .execute();
      return logged;
    },

    /**
     * `nextSeq`, and in the same statement the minutes the user's messages live on their current plan (null:
     * unlimited, or no such user: then no seq either). A send starts with it: it locks the user's row first, as
     * every transaction that appends changes does (see `unit-of-work.ts`), and saves the plan's look-up.
     */
    nextSeqAndRetention: (userId: string): Promise<Claimed | undefined> => rows.users.claim(db, userId),

    /** The newest sequence number of each of these users, 0 for none (users without a row are left out). */
    async currentSeqs(userIds: string[]): Promise<Map<string, number>> {
      if (userIds.length === 0) return new Map();
      const rows = await db.selectFrom("users").select(["id", "seq"]).where("id", "in", userIds).execute();
      return new Map(rows.map((r) => [r.id, Number(r.seq)]));
    },

    /**
     * Up to `limit` changes with `after < seq <= upTo`, oldest first. Pruned changes are simply missing:
     * the caller checks that the numbers follow on.
     */
    async changesBetween(userId: string, after: number, upTo: number, limit: number): Promise<LoggedChange[]> {
      const { rows } = await changesBetweenQuery(db, { userId, after, upTo, limit });
      return rows.map((r) => ({ seq: Number(r.seq), change: changeOf(r) }));
    },

    /** Forgets changes older than the cut-off; devices away longer than that refetch everything. */
    async pruneChanges(before: number): Promise<void> {
      await db.deleteFrom("user_events").where("created_at", "<", before).execute();
    },
  };
}

export type ChangesRepository = ReturnType<typeof createChangesRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's change log. */
export async function eraseChangesOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("user_events").where("user_id", "=", userId).execute();
}

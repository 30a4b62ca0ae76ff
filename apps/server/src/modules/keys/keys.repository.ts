/** The account's key state (decision 020): sessions' public keys, epochs, wraps and rosters, stored as opaque text. */
import { type Expression, expressionBuilder, sql, type Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, KeyEpochsTable, KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";

const WRAP_COLUMNS = ["epoch", "recipient_key_id", "sender_key_id", "mode", "enc", "ciphertext", "created_at"] as const;
const ROSTER_COLUMNS = ["epoch", "key_id", "public_key", "kind", "added_by_key_id", "added_at", "tag"] as const;

export type WrapRow = Pick<KeyWrapsTable, (typeof WRAP_COLUMNS)[number]>;
export type RosterRow = Pick<KeyRosterTable, (typeof ROSTER_COLUMNS)[number]>;

/**
 * The key state's writes to rows the accounts module owns (issue 44: one writer per table): `users`' epoch, due
 * rotation and request to start over, a session's public and signing keys. Accounts ranks above keys, so the
 * composition root hands these in (`keyStateRowsOfKeys`); each runs on the database or transaction it is given, so a
 * write stays in its unit of work.
 */
export interface KeyStateRows {
  /** Sets the session's key only while it has none; false when it had one (or no such session). */
  setDeviceKey(db: Db, userId: string, sessionId: string, publicKey: string, keyId: string): Promise<boolean>;
  /** Sets the session's signing key only while it has none; false when it had one (or no such session). */
  setSigningKey(db: Db, userId: string, sessionId: string, signingKey: string): Promise<boolean>;
  /** Marks the account's next rotation due from `now`, kept if it already was. */
  markRotationDue(db: Db, userId: string, now: number): Promise<void>;
  /** Records (or replaces) the request to start over; `undefined` withdraws it. */
  setStartOverRequest(db: Db, userId: string, request: { sessionId: string; requestedAt: number } | undefined): Promise<void>;
  /** Moves the account to `epoch` if its current one is still `expected`, clearing a due rotation; false if not. */
  advance(db: Db, userId: string, expected: number | null, epoch: number): Promise<boolean>;
}

/**
 * Whether the session whose account and key these are holds a wrap of the account's current epoch (decision 020): it
 * can read. For a select of session rows, as Devices and the key requests list them.
 */
export function holdsCurrentKey(userId: Expression<string>, keyId: Expression<string | null>) {
  const eb = expressionBuilder<Database, never>();
  return eb
    .exists(
      eb
        .selectFrom("key_wraps")
        .innerJoin("users", "users.id", "key_wraps.user_id")
        .where("key_wraps.user_id", "=", userId)
        .whereRef("key_wraps.epoch", "=", "users.key_epoch")
        .where("key_wraps.recipient_key_id", "=", keyId)
        .select(sql<number>`1`.as("one")),
    )
    .as("holds_current_key");
}

/**
 * Deletes the wraps addressed to a session's key, before the session goes: what it held leaves with it. Called by
 * every statement that deletes a session (its end, its expiry); account deletion deletes every key row of the account.
 * If the session held the account's current epoch, a rotation is due from `now` (docs/protocol/encryption.md, "Rotation and revocation"); the
 * answer says so, so the caller can tell the account's devices.
 */
export async function deleteWrapsOfSession(
  db: Db,
  accountRows: Pick<KeyStateRows, "markRotationDue">,
  userId: string,
  sessionId: string,
  now: number,
): Promise<{ rotationDue: number | null }> {
  const held = await db
    .selectFrom("key_wraps")
    .innerJoin("users", "users.id", "key_wraps.user_id")
    .innerJoin("sessions", (join) =>
      join.onRef("sessions.user_id", "=", "key_wraps.user_id").onRef("sessions.key_id", "=", "key_wraps.recipient_key_id"),
    )
    .select("key_wraps.epoch")
    .where("key_wraps.user_id", "=", userId)
    .where("sessions.id", "=", sessionId)
    .whereRef("key_wraps.epoch", "=", "users.key_epoch")
    .executeTakeFirst();
  await db
    .deleteFrom("key_wraps")
    .where("user_id", "=", userId)
    .where("recipient_key_id", "in", (eb) =>
      eb
        .selectFrom("sessions")
        .select("key_id")
        .where("id", "=", sessionId)
        .where("user_id", "=", userId)
        .where("key_id", "is not", null)
        .$narrowType<{ key_id: string }>(),
    )
    .execute();
  if (!held) return { rotationDue: null };
  await accountRows.markRotationDue(db, userId, now);
  return { rotationDue: Number(held.epoch) };
}

/**
 * Over the database, or over a transaction (`.in(trx)`) for work that must commit together; `accountRows` writes what the
 * accounts module owns, on the same database or transaction.
 */
export function createKeysRepository(db: Db, accountRows: KeyStateRows) {
  return {
    in: (trx: Transaction<Database>) => createKeysRepository(trx, accountRows),

    /** The session's public key and key id (both null until set); undefined when the user has no such session. */
    deviceKey(userId: string, sessionId: string): Promise<{ public_key: string | null; key_id: string | null } | undefined> {
      return db
        .selectFrom("sessions")
        .select(["public_key", "key_id"])
        .where("user_id", "=", userId)
        .where("id", "=", sessionId)
        .executeTakeFirst()
        .then((row) => row && { public_key: row.public_key ?? null, key_id: row.key_id ?? null });
    },

    /** Whether another session of the user already has this key id. */
    async keyInUse(userId: string, keyId: string): Promise<boolean> {
      const row = await db.selectFrom("sessions").select("id").where("user_id", "=", userId).where("key_id", "=", keyId).executeTakeFirst();
      return row !== undefined;
    },

    /** Sets the session's key only while it has none; false when it had one (or no such session). */
    setDeviceKey(userId: string, sessionId: string, publicKey: string, keyId: string): Promise<boolean> {
      return accountRows.setDeviceKey(db, userId, sessionId, publicKey, keyId);
    },

    /** The account's current epoch (null: none yet) and when its rotation became due (null: not due). */
    async account(userId: string): Promise<{ epoch: number | null; rotationDueAt: number | null } | undefined> {
      const row = await db.selectFrom("users").select(["key_epoch", "key_rotation_due_at"]).where("id", "=", userId).executeTakeFirst();
      if (!row) return undefined;
      const number = (value: number | null | undefined) => (value == null ? null : Number(value));
      return { epoch: number(row.key_epoch), rotationDueAt: number(row.key_rotation_due_at) };
    },

    /** Marks the account's next rotation due from `now` (kept if it already was): nothing new goes in under this epoch. */
    markRotationDue(userId: string, now: number): Promise<void> {
      return accountRows.markRotationDue(db, userId, now);
    },

    /** A locked device's request to start over (decision 021), if one stands. */
    async startOverRequest(userId: string): Promise<{ sessionId: string; requestedAt: number } | undefined> {
      const row = await db
        .selectFrom("users")
        .select(["key_start_over_at", "key_start_over_session_id"])
        .where("id", "=", userId)
        .executeTakeFirst();
      if (row?.key_start_over_at == null || !row.key_start_over_session_id) return undefined;
      return { sessionId: row.key_start_over_session_id, requestedAt: Number(row.key_start_over_at) };
    },

    /** Records (or replaces) the request to start over; `undefined` withdraws it. */
    setStartOverRequest(userId: string, request: { sessionId: string; requestedAt: number } | undefined): Promise<void> {
      return accountRows.setStartOverRequest(db, userId, request);
    },

    /** The key ids that hold a wrap of the epoch: signed-in devices, since a session's wraps go with it. */
    async holders(userId: string, epoch: number): Promise<string[]> {
      const rows = await db
        .selectFrom("key_wraps")
        .select("recipient_key_id")
        .where("user_id", "=", userId)
        .where("epoch", "=", epoch)
        .execute();
      // Sorted here, not by the engines, whose collations order mixed case differently.
      return rows.map((row) => row.recipient_key_id).sort();
    },

    /** The wraps addressed to this key id, oldest epoch first. */
    wrapsFor(userId: string, keyId: string): Promise<WrapRow[]> {
      return db
        .selectFrom("key_wraps")
        .select(WRAP_COLUMNS)
        .where("user_id", "=", userId)
        .where("recipient_key_id", "=", keyId)
        .orderBy("epoch")
        .execute();
    },

    /** The roster rows of these epochs (or of every epoch from one on), by epoch, then in the order they were added. */
    roster(userId: string, epochs: number[] | { from: number }): Promise<RosterRow[]> {
      if (Array.isArray(epochs) && epochs.length === 0) return Promise.resolve([]);
      return db
        .selectFrom("key_roster")
        .select(ROSTER_COLUMNS)
        .where("user_id", "=", userId)
        .where((eb) => (Array.isArray(epochs) ? eb("epoch", "in", epochs) : eb("epoch", ">=", epochs.from)))
        .orderBy("epoch")
        .orderBy("added_at")
        .orderBy("key_id")
        .execute();
    },

    /** Whether a wrap of the epoch is addressed to this key id. */
    async holds(userId: string, epoch: number, keyId: string): Promise<boolean> {
      const row = await db
        .selectFrom("key_wraps")
        .select("epoch")
        .where("user_id", "=", userId)
        .where("epoch", "=", epoch)
        .where("recipient_key_id", "=", keyId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** How many of the user's sessions but `exceptSessionId`, seen since `liveSince`, hold a wrap of the epoch. */
    async otherHolders(userId: string, epoch: number, exceptSessionId: string, liveSince: number): Promise<number> {
      const row = await db
        .selectFrom("sessions")
        .innerJoin("key_wraps", (join) =>
          join.onRef("key_wraps.user_id", "=", "sessions.user_id").onRef("key_wraps.recipient_key_id", "=", "sessions.key_id"),
        )
        .select((eb) => eb.fn.countAll().as("count"))
        .where("sessions.user_id", "=", userId)
        .where("sessions.id", "!=", exceptSessionId)
        .where("sessions.last_seen_at", ">=", liveSince)
        .where("key_wraps.epoch", "=", epoch)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    /**
     * Moves the account to `epoch` if its current one is still `expected` (null: none yet), clearing a due rotation;
     * false when another device moved it first. One statement, so it holds on both engines whatever else ran.
     */
    advance(userId: string, expected: number | null, epoch: number): Promise<boolean> {
      return accountRows.advance(db, userId, expected, epoch);
    },

    /** Stores a new epoch with its wraps and roster. */
    async insertEpoch(epoch: KeyEpochsTable, wraps: KeyWrapsTable[], roster: KeyRosterTable[]): Promise<void> {
      await db.insertInto("key_epochs").values(epoch).execute();
      await db.insertInto("key_wraps").values(wraps).execute();
      await db.insertInto("key_roster").values(roster).execute();
    },

    /** The numbers of the account's epochs that still have their record. */
    async epochsOf(userId: string): Promise<number[]> {
      const rows = await db.selectFrom("key_epochs").select("epoch").where("user_id", "=", userId).execute();
      return rows.map((row) => Number(row.epoch));
    },

    /** A QR pairing's handover for a new key (`key-handover.ts`); a key's row or wrap already there stays as it was. */
    async insertHandover(wraps: KeyWrapsTable[], roster: KeyRosterTable[]): Promise<void> {
      if (wraps.length > 0)
        await db
          .insertInto("key_wraps")
          .values(wraps)
          .onConflict((c) => c.doNothing())
          .execute();
      if (roster.length > 0)
        await db
          .insertInto("key_roster")
          .values(roster)
          .onConflict((c) => c.doNothing())
          .execute();
    },

    /** Replaces the device's wrap of the epoch by one it sealed for itself; false when it held none of that epoch. */
    async replaceOwnWrap(
      userId: string,
      keyId: string,
      wrap: { epoch: number; enc: string; ciphertext: string },
      now: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable("key_wraps")
        .set({ sender_key_id: keyId, mode: "auth", enc: wrap.enc, ciphertext: wrap.ciphertext, created_at: now })
        .where("user_id", "=", userId)
        .where("epoch", "=", wrap.epoch)
        .where("recipient_key_id", "=", keyId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** One epoch's record, for a replayed `key.epoch_created`. */
    epoch(userId: string, epoch: number): Promise<KeyEpochsTable | undefined> {
      return db.selectFrom("key_epochs").selectAll().where("user_id", "=", userId).where("epoch", "=", epoch).executeTakeFirst();
    },
  };
}

export type KeysRepository = ReturnType<typeof createKeysRepository>;

/** Account deletion (`flows/account-deletion.ts`): the account's recovery code, wraps, rosters and epochs. */
export async function eraseKeysOfAccount(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("key_recovery").where("user_id", "=", userId).execute();
  await db.deleteFrom("key_wraps").where("user_id", "=", userId).execute();
  await db.deleteFrom("key_roster").where("user_id", "=", userId).execute();
  await db.deleteFrom("key_epochs").where("user_id", "=", userId).execute();
}

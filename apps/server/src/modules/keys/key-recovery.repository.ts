/** The account's recovery key (docs/protocol/encryption.md, "Recovery code"): its row, and its wraps and roster rows among every key's. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, KeyRecoveryTable, KeyRosterTable, KeyWrapsTable } from "../../db/schema.ts";

/** A key's row in an epoch's roster, replacing the one it had there. */
async function upsertRoster(db: Db, roster: KeyRosterTable): Promise<void> {
  await db
    .insertInto("key_roster")
    .values(roster)
    .onConflict((c) =>
      c.columns(["user_id", "epoch", "key_id"]).doUpdateSet({
        public_key: roster.public_key,
        kind: roster.kind,
        added_by_key_id: roster.added_by_key_id,
        added_at: roster.added_at,
        tag: roster.tag,
      }),
    )
    .execute();
}

/** Over the database, or over a transaction (`.in(trx)`) for work that must commit together. */
export function createKeyRecoveryRepository(db: Db) {
  return {
    in: (trx: Transaction<Database>) => createKeyRecoveryRepository(trx),

    recovery(userId: string): Promise<KeyRecoveryTable | undefined> {
      return db.selectFrom("key_recovery").selectAll().where("user_id", "=", userId).executeTakeFirst();
    },

    /**
     * Removes the account's recovery key and its wraps, so no rotation wraps for it again; its roster rows stay, as
     * the epochs' history (a signed-out device's do too). Answers whether there was one.
     */
    async remove(userId: string): Promise<boolean> {
      const old = await db.selectFrom("key_recovery").select("key_id").where("user_id", "=", userId).executeTakeFirst();
      if (!old) return false;
      await db.deleteFrom("key_wraps").where("user_id", "=", userId).where("recipient_key_id", "=", old.key_id).execute();
      await db.deleteFrom("key_recovery").where("user_id", "=", userId).execute();
      return true;
    },

    /** Stores a new recovery key (after `remove`) with its wraps and its roster row, which replaces one of the same key. */
    async insert(recovery: KeyRecoveryTable, wraps: KeyWrapsTable[], roster: KeyRosterTable): Promise<void> {
      await db.deleteFrom("key_wraps").where("user_id", "=", recovery.user_id).where("recipient_key_id", "=", recovery.key_id).execute();
      await db.insertInto("key_recovery").values(recovery).execute();
      await db.insertInto("key_wraps").values(wraps).execute();
      await upsertRoster(db, roster);
    },

    /** A device's own wraps and roster row after it used the recovery code: a wrap or row it already had is replaced. */
    async addDevice(wraps: KeyWrapsTable[], roster: KeyRosterTable): Promise<void> {
      await db
        .insertInto("key_wraps")
        .values(wraps)
        .onConflict((c) =>
          c.columns(["user_id", "epoch", "recipient_key_id"]).doUpdateSet((eb) => ({
            sender_key_id: eb.ref("excluded.sender_key_id"),
            mode: eb.ref("excluded.mode"),
            enc: eb.ref("excluded.enc"),
            ciphertext: eb.ref("excluded.ciphertext"),
            created_at: eb.ref("excluded.created_at"),
          })),
        )
        .execute();
      await upsertRoster(db, roster);
    },
  };
}

export type KeyRecoveryRepository = ReturnType<typeof createKeyRecoveryRepository>;

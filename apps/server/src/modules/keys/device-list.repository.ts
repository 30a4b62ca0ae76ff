/** The signed device list's entries and the sessions' signing keys (issue 41), stored as the devices sent them. */
import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import type { Database, DeviceListTable } from "../../db/schema.ts";
import type { KeyStateRows } from "./keys.repository.ts";

const ENTRY_COLUMNS = ["seq", "prev", "kind", "key_id", "public_key", "signing_key", "signer_key_id", "signature"] as const;

/** `accountRows` writes the session's signing key, a row of the accounts module, on the same database or transaction. */
export function createDeviceListRepository(db: Db, accountRows: Pick<KeyStateRows, "setSigningKey">) {
  return {
    in: (trx: Transaction<Database>) => createDeviceListRepository(trx, accountRows),

    async entries(userId: string) {
      const rows = await db.selectFrom("device_list").select(ENTRY_COLUMNS).where("user_id", "=", userId).orderBy("seq").execute();
      return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
    },

    async head(userId: string): Promise<{ seq: number; hash: string } | undefined> {
      const row = await db
        .selectFrom("device_list")
        .select(["seq", "hash"])
        .where("user_id", "=", userId)
        .orderBy("seq", "desc")
        .limit(1)
        .executeTakeFirst();
      return row && { seq: Number(row.seq), hash: row.hash };
    },

    async append(row: DeviceListTable): Promise<void> {
      await db.insertInto("device_list").values(row).execute();
    },

    /** The signing keys the account's sessions published, by their key ids. */
    async signingKeys(userId: string): Promise<Array<{ key_id: string; signing_key: string }>> {
      const rows = await db
        .selectFrom("sessions")
        .select(["key_id", "signing_key"])
        .where("user_id", "=", userId)
        .where("key_id", "is not", null)
        .where("signing_key", "is not", null)
        .orderBy("created_at")
        .execute();
      return rows.flatMap((row) => (row.key_id && row.signing_key ? [{ key_id: row.key_id, signing_key: row.signing_key }] : []));
    },

    async signingKey(userId: string, sessionId: string): Promise<{ signing_key: string | null } | undefined> {
      const row = await db
        .selectFrom("sessions")
        .select("signing_key")
        .where("user_id", "=", userId)
        .where("id", "=", sessionId)
        .executeTakeFirst();
      return row && { signing_key: row.signing_key ?? null };
    },

    setSigningKey(userId: string, sessionId: string, signingKey: string): Promise<boolean> {
      return accountRows.setSigningKey(db, userId, sessionId, signingKey);
    },
  };
}

export type DeviceListRepository = ReturnType<typeof createDeviceListRepository>;

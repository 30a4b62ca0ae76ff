import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 6 (docs/protocol/encryption.md, "Recovery code"): the account's recovery key. One per account, replaced
 * whole: its public key and key id (its roster rows and wraps live in key_roster and key_wraps like any key's), the
 * anchor (the epoch key of `anchor_epoch` sealed with a key only the code gives) and the SHA-256 of a proof derived
 * from the code, which a locked device shows to add itself with what the code opened.
 */
export const m020KeyRecovery: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("key_recovery")
      .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("anchor_epoch", "integer", (c) => c.notNull())
      .addColumn("anchor", "text", (c) => c.notNull())
      .addColumn("proof_hash", "text", (c) => c.notNull())
      .addColumn("created_by_session_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};

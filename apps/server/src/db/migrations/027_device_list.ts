import type { Kysely, Migration } from "kysely";

/**
 * Issue 41, the signed device list (docs/protocol/encryption.md, "Signed device list"): each account's entries, kept
 * append-only in the order the devices chained them (`seq` from 0, `hash` the SHA-256 the next entry names as its
 * `prev`), and each session's Ed25519 signing key, set once, which the device that adds it to the list reads.
 */
export const m027DeviceList: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("device_list")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("prev", "text")
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("signing_key", "text", (c) => c.notNull())
      .addColumn("signer_key_id", "text", (c) => c.notNull())
      .addColumn("signature", "text", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("created_by_session_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("device_list_pk", ["user_id", "seq"])
      .execute();
    await db.schema.alterTable("sessions").addColumn("signing_key", "text").execute();
  },
};

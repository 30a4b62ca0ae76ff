import type { Kysely, Migration } from "kysely";

/**
 * End-to-end encryption, step 2 (decision 020): the server keeps each session's public key and the account's key
 * state as opaque text it never opens. An epoch is a numbered account key; its wraps (the key sealed for one
 * recipient key) and its roster (the keys trusted in it) hang off it. Columns and tables only: nothing existing changes.
 */
export const m016Keys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("sessions").addColumn("public_key", "text").execute();
    await db.schema.alterTable("sessions").addColumn("key_id", "text").execute();
    // Two sessions of an account never share a key: a wrap is addressed to a key id, and a sign-out deletes by it.
    await db.schema.createIndex("sessions_user_key").on("sessions").columns(["user_id", "key_id"]).unique().execute();
    await db.schema.alterTable("users").addColumn("key_epoch", "integer").execute();
    await db.schema.alterTable("users").addColumn("key_rotation_due_at", "bigint").execute();
    await db.schema
      .createTable("key_epochs")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("epoch", "integer", (c) => c.notNull())
      .addColumn("created_by_session_id", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("key_epochs_pkey", ["user_id", "epoch"])
      .execute();
    await db.schema
      .createTable("key_wraps")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("epoch", "integer", (c) => c.notNull())
      .addColumn("recipient_key_id", "text", (c) => c.notNull())
      .addColumn("sender_key_id", "text")
      .addColumn("mode", "text", (c) => c.notNull())
      .addColumn("enc", "text", (c) => c.notNull())
      .addColumn("ciphertext", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("key_wraps_pkey", ["user_id", "epoch", "recipient_key_id"])
      .addForeignKeyConstraint("key_wraps_epoch", ["user_id", "epoch"], "key_epochs", ["user_id", "epoch"], (c) => c.onDelete("cascade"))
      .execute();
    // A device reads its own wraps, and a sign-out deletes them, by recipient.
    await db.schema.createIndex("key_wraps_recipient").on("key_wraps").columns(["user_id", "recipient_key_id"]).execute();
    await db.schema
      .createTable("key_roster")
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("epoch", "integer", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("added_by_key_id", "text")
      .addColumn("added_at", "bigint", (c) => c.notNull())
      .addColumn("tag", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("key_roster_pkey", ["user_id", "epoch", "key_id"])
      .addForeignKeyConstraint("key_roster_epoch", ["user_id", "epoch"], "key_epochs", ["user_id", "epoch"], (c) => c.onDelete("cascade"))
      .execute();
  },
};

import type { Migration } from "kysely";

export const m014Email: Migration = {
  // Issue 26, email: whether an account's address is verified, the one-time links sent by mail (only a hash of each
  // token), and the mails sent per account, which the per-account limit counts.
  async up(db) {
    await db.schema.alterTable("users").addColumn("email_verified_at", "bigint").execute();
    await db.schema
      .createTable("email_tokens")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("purpose", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("email_tokens_user").on("email_tokens").column("user_id").execute();
    await db.schema.createIndex("email_tokens_expires").on("email_tokens").column("expires_at").execute();
    await db.schema
      .createTable("email_sends")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("sent_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("email_sends_user_kind").on("email_sends").columns(["user_id", "kind", "sent_at"]).execute();
  },
};

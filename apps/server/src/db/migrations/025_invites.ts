import type { Kysely, Migration } from "kysely";

/** Issue 43: one-time invite links to register, kept as the SHA-256 of their token (`REGISTRATION=invite`). */
export const m025Invites: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("invites")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("used_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .execute();
  },
};

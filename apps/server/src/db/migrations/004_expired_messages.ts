import type { Kysely, Migration } from "kysely";

export const m004ExpiredMessages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("expired_messages")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("expired_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("expired_messages_time").on("expired_messages").column("expired_at").execute();
  },
};

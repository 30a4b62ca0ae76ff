import type { Kysely, Migration } from "kysely";

export const m002DevicesPush: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("pairing_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("code_hash", "text", (c) => c.notNull().unique())
      .addColumn("short_code", "text", (c) => c.notNull())
      .addColumn("secret_hash", "text", (c) => c.notNull())
      .addColumn("user_agent", "text", (c) => c.notNull())
      .addColumn("ip", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("decided_at", "bigint")
      .addColumn("token_hash", "text")
      .addColumn("token_expires_at", "bigint")
      .execute();
    await db.schema.createIndex("pairing_requests_short_code").on("pairing_requests").column("short_code").execute();
    await db.schema.createIndex("pairing_requests_expiry").on("pairing_requests").column("expires_at").execute();
    await db.schema
      .createTable("push_subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("endpoint", "text", (c) => c.notNull().unique())
      .addColumn("p256dh", "text", (c) => c.notNull())
      .addColumn("auth", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("push_subscriptions_user").on("push_subscriptions").column("user_id").execute();
    await db.schema.createIndex("push_subscriptions_session").on("push_subscriptions").column("session_id").execute();
  },
};

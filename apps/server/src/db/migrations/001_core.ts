import type { Kysely, Migration } from "kysely";

export const m001Core: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("subscriptions_types")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("max_message_duration", "integer")
      .addColumn("price_per_month", "double precision", (c) => c.notNull())
      .addColumn("subscription_duration", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("users")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("email", "text", (c) => c.notNull().unique())
      .addColumn("password_hash", "text", (c) => c.notNull())
      .addColumn("actual_subscription_id", "text", (c) => c.notNull())
      .addColumn("seq", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("subscription_type_id", "integer", (c) => c.notNull().references("subscriptions_types.id"))
      .addColumn("title_subscription", "text", (c) => c.notNull())
      .addColumn("description_subscription", "text", (c) => c.notNull())
      .addColumn("max_message_duration", "integer")
      .addColumn("price_per_month", "double precision", (c) => c.notNull())
      .addColumn("subscription_duration", "integer", (c) => c.notNull())
      .addColumn("date_subscription", "bigint", (c) => c.notNull())
      .addColumn("date_expiration_subscription", "bigint", (c) => c.notNull())
      .addColumn("paid", "integer", (c) => c.notNull())
      .addColumn("id_transaction", "text", (c) => c.notNull())
      .addColumn("payment_mode", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("subscriptions_user").on("subscriptions").column("user_id").execute();
    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("user_agent", "text", (c) => c.notNull())
      .addColumn("ip", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("last_seen_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();
    await db.schema
      .createTable("date_messages")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("day_key", "text", (c) => c.notNull())
      .addColumn("last_message_time", "text", (c) => c.notNull())
      .addColumn("last_message_type", "text", (c) => c.notNull())
      .addColumn("last_message", "text", (c) => c.notNull())
      .addColumn("count_messages", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("date_messages_user_day", ["user_id", "day_key"])
      .execute();
    await db.schema
      .createTable("messages")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("date_message_id", "text", (c) => c.notNull().references("date_messages.id").onDelete("cascade"))
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("filename", "text", (c) => c.notNull())
      .addColumn("file_url", "text", (c) => c.notNull())
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("time", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("messages_day").on("messages").columns(["date_message_id", "created_at"]).execute();
    await db.schema.createIndex("messages_user_time").on("messages").columns(["user_id", "created_at"]).execute();
    await db.schema
      .createTable("user_events")
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("seq", "bigint", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("ref", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("user_events_pk", ["user_id", "seq"])
      .execute();
    await db.schema.createIndex("user_events_time").on("user_events").column("created_at").execute();
  },
};

import type { Migration } from "kysely";

export const m011Payments: Migration = {
  async up(db) {
    await db.schema
      .createTable("payment_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("received_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("payment_customers")
      .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
      .addColumn("customer_id", "text", (c) => c.notNull().unique())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("payment_subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("current_period_end", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("payment_subscriptions_user").on("payment_subscriptions").column("user_id").execute();
    // No reference to users or spaces: what was paid stays on record when the account or the discussion goes.
    await db.schema
      .createTable("payment_checkouts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("space_id", "text")
      .addColumn("days", "integer")
      .addColumn("amount", "integer", (c) => c.notNull())
      .addColumn("currency", "text", (c) => c.notNull())
      .addColumn("granted_at", "bigint", (c) => c.notNull())
      .execute();
  },
};

import { type Migration, sql } from "kysely";

/** The server_keys row the first account of a new installation claims to become its admin (the unique name decides a race). */
export const FIRST_ADMIN_CLAIM = "first_admin_claimed";

export const m010Admin: Migration = {
  // Issue 30: admins, disabled accounts, the audit of admin actions, one-time reset links, activity per hour.
  async up(db) {
    await db.schema
      .alterTable("users")
      .addColumn("role", "text", (c) => c.notNull().defaultTo("user"))
      .execute();
    await db.schema.alterTable("users").addColumn("disabled_at", "bigint").execute();
    await db.schema
      .createTable("admin_audit")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("seq", "bigint", (c) => c.notNull())
      .addColumn("at", "bigint", (c) => c.notNull())
      .addColumn("actor_id", "text")
      .addColumn("actor_label", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("target_id", "text")
      .addColumn("target_label", "text", (c) => c.notNull())
      .addColumn("detail", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("admin_audit_seq").on("admin_audit").column("seq").execute();
    await db.schema
      .createTable("password_resets")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("password_resets_user").on("password_resets").column("user_id").execute();
    await db.schema
      .createTable("activity_hours")
      .addColumn("hour", "bigint", (c) => c.primaryKey())
      .addColumn("messages", "bigint", (c) => c.notNull())
      .addColumn("files", "bigint", (c) => c.notNull())
      .execute();
    // An installation that already has accounts gets its first admin by command (`role set`), never by the next sign-up.
    const existing = await sql<{ n: number }>`select count(*) as n from users`.execute(db);
    if (Number(existing.rows[0]?.n ?? 0) > 0) {
      await sql`insert into server_keys (name, value, created_at) values (${FIRST_ADMIN_CLAIM}, '{}', ${Date.now()})`.execute(db);
    }
  },
};

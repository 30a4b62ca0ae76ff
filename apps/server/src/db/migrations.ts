/** Schema migrations, written with the portable schema builder so SQLite and PostgreSQL share them. */

import { SUBSCRIPTION_TYPES } from "@daysync/shared";
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import type { Database } from "./schema.ts";

/** The server_keys row the first account of a new installation claims to become its admin (the unique name decides a race). */
export const FIRST_ADMIN_CLAIM = "first_admin_claimed";

const migrations: Record<string, Migration> = {
  "001_core": {
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
  },
  "002_devices_push": {
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
  },
  "003_uploads": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("uploads")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("filename", "text", (c) => c.notNull())
        .addColumn("mime", "text", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("uploads_message").on("uploads").column("message_id").execute();
    },
  },
  "004_expired_messages": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("expired_messages")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("expired_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("expired_messages_time").on("expired_messages").column("expired_at").execute();
    },
  },
  "005_server_keys": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("server_keys")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "006_message_device": {
    async up(db: Kysely<unknown>) {
      // A device's own name, when the user gave it one (null: named from its User-Agent).
      await db.schema.alterTable("sessions").addColumn("name", "text").execute();
      // The sending session, and its name then: kept after the session ends, updated when it is renamed.
      await db.schema.alterTable("messages").addColumn("device_id", "text").execute();
      await db.schema.alterTable("messages").addColumn("device_name", "text").execute();
    },
  },
  "007_pairing_offers": {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("pairing_requests").addColumn("offered_by", "text").execute();
    },
  },
  /**
   * Spaces (decision 016): a user's private messages are their personal space (its id is the user's id, and so is
   * the id of its one membership); a discussion is a shared space. `messages` is rebuilt because a discussion's
   * message has no day, and SQLite cannot drop a NOT NULL in place; `user_id` stays, as the author.
   */
  "008_spaces": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("spaces")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("title", "text", (c) => c.notNull())
        .addColumn("public_id", "text", (c) => c.unique())
        .addColumn("created_by", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("ends_at", "bigint")
        .execute();
      await db.schema.createIndex("spaces_ends_at").on("spaces").column("ends_at").execute();
      await db.schema
        .createTable("space_members")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("display_name", "text", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("joined_at", "bigint", (c) => c.notNull())
        .addColumn("last_read_at", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("left_at", "bigint")
        .addColumn("left_reason", "text")
        .addUniqueConstraint("space_members_space_user", ["space_id", "user_id"])
        .execute();
      await db.schema.createIndex("space_members_user").on("space_members").column("user_id").execute();
      await sql`insert into spaces (id, kind, title, public_id, created_by, created_at, updated_at, ends_at)
        select id, 'personal', '', null, id, created_at, created_at, null from users`.execute(db);
      await sql`insert into space_members (id, space_id, user_id, display_name, role, joined_at, last_read_at)
        select id, id, id, name, 'owner', created_at, 0 from users`.execute(db);

      await db.schema
        .createTable("messages_008")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("date_message_id", "text", (c) => c.references("date_messages.id").onDelete("cascade"))
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("filename", "text", (c) => c.notNull())
        .addColumn("file_url", "text", (c) => c.notNull())
        .addColumn("date", "text", (c) => c.notNull())
        .addColumn("time", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("device_id", "text")
        .addColumn("device_name", "text")
        .execute();
      await sql`insert into messages_008 (id, space_id, user_id, date_message_id, type, content, filename, file_url,
          date, time, url, created_at, device_id, device_name)
        select id, user_id, user_id, date_message_id, type, content, filename, file_url, date, time, url, created_at,
          device_id, device_name from messages`.execute(db);
      await db.schema.dropTable("messages").execute();
      await db.schema.alterTable("messages_008").renameTo("messages").execute();
      await db.schema.createIndex("messages_day").on("messages").columns(["date_message_id", "created_at"]).execute();
      await db.schema.createIndex("messages_user_time").on("messages").columns(["user_id", "created_at"]).execute();
      await db.schema.createIndex("messages_space_time").on("messages").columns(["space_id", "created_at"]).execute();

      for (const table of ["uploads", "expired_messages"]) {
        await db.schema.alterTable(table).addColumn("space_id", "text").execute();
        await sql`update ${sql.table(table)} set space_id = user_id`.execute(db);
      }
      await db.schema.createIndex("uploads_space").on("uploads").column("space_id").execute();
    },
  },
  "009_send_indexes": {
    // No query reads messages by author and time (days and discussions go by space); every send paid for the index.
    async up(db) {
      await db.schema.dropIndex("messages_user_time").execute();
    },
  },
  "010_admin": {
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
  },
  "011_payments": {
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
  },
  /**
   * Sign-in through identity providers (issue 26): an identity is (issuer, subject), never an email. An account
   * made through a provider has no password: its `password_hash` holds a marker no password verifies against.
   * `auth_flows` holds each started sign-in's state, nonce and PKCE verifier until its callback consumes it.
   */
  "012_identities": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("identities")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("provider", "text", (c) => c.notNull())
        .addColumn("issuer", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("identities_issuer_subject", ["issuer", "subject"])
        .execute();
      await db.schema.createIndex("identities_user").on("identities").column("user_id").execute();
      await db.schema
        .createTable("auth_flows")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("provider", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("nonce", "text", (c) => c.notNull())
        .addColumn("code_verifier", "text", (c) => c.notNull())
        .addColumn("return_to", "text", (c) => c.notNull())
        .addColumn("link_user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("auth_flows_expiry").on("auth_flows").column("expires_at").execute();
    },
  },
  "013_message_file_size": {
    // A file message shows its size; the upload row has it, but every read of messages would have to join it.
    async up(db) {
      await db.schema.alterTable("messages").addColumn("file_size", "bigint").execute();
      await sql`update messages set file_size = (select size from uploads where uploads.message_id = messages.id and uploads.space_id = messages.space_id) where type <> 'text'`.execute(
        db,
      );
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** The migrator of our migrations; tests use it to stop at an older one (`migrateTo`). */
export function createMigrator(db: Kysely<Database>, options: { schema?: string } = {}): Migrator {
  // On PostgreSQL the migrator must be told the schema: it looks for its tables in every schema otherwise.
  return new Migrator({ db, provider, ...(options.schema ? { migrationTableSchema: options.schema } : {}) });
}

/** Brings the schema up to date and makes sure the plans exist. */
export async function migrate(db: Kysely<Database>, options: { schema?: string } = {}): Promise<void> {
  const { error, results } = await createMigrator(db, options).migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) throw new Error(`Migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  for (const t of SUBSCRIPTION_TYPES) {
    await db
      .insertInto("subscriptions_types")
      .values({ ...t })
      .onConflict((oc) => oc.column("id").doUpdateSet({ ...t }))
      .execute();
  }
}

import { type Kysely, type Migration, sql } from "kysely";

/**
 * Spaces (decision 016): a user's private messages are their personal space (its id is the user's id, and so is
 * the id of its one membership); a discussion is a shared space. `messages` is rebuilt because a discussion's
 * message has no day, and SQLite cannot drop a NOT NULL in place; `user_id` stays, as the author.
 */
export const m008Spaces: Migration = {
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
};

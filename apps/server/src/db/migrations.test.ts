/** Migrations 008 and 009 on a database that already holds data, on the suite's engine. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgDatabaseFor } from "../testing/pg-database.ts";
import { connectDatabase, type Db } from "./database.ts";
import { createMigrator, migrate } from "./migrations.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-migrate-"));
let schema: Awaited<ReturnType<typeof createPgDatabaseFor>> | undefined;
let db: Db;
let schemaName: string | undefined;

beforeAll(async () => {
  const suiteDatabase = process.env.DATABASE_URL;
  if (suiteDatabase?.startsWith("postgres")) schema = await createPgDatabaseFor(suiteDatabase, dataDir);
  db = connectDatabase({ databaseFile: path.join(dataDir, "daysync.sqlite"), databaseUrl: schema?.url });
  if (schema) schemaName = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
});
afterAll(async () => {
  await db?.destroy();
  await schema?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("008_spaces", () => {
  it("gives every existing user a personal space with its one membership, and their rows its id", async () => {
    const migrator = createMigrator(db, schemaName ? { schema: schemaName } : {});
    const { error } = await migrator.migrateTo("007_pairing_offers");
    expect(error).toBeUndefined();

    const at = Date.UTC(2026, 10, 1);
    const userId = crypto.randomUUID();
    const dayId = crypto.randomUUID();
    const messageId = crypto.randomUUID();
    const goneId = crypto.randomUUID();
    // Written with raw SQL: the tables have their 007 shape here, not the one `Database` describes.
    await sql`insert into users (id, name, email, password_hash, actual_subscription_id, seq, created_at, updated_at)
      values (${userId}, 'Old Timer', 'old@example.com', 'x', 'sub', 3, ${at}, ${at})`.execute(db);
    await sql`insert into date_messages (id, user_id, date, day_key, last_message_time, last_message_type, last_message,
        count_messages, created_at, updated_at)
      values (${dayId}, ${userId}, '11/1/2026', '2026-11-01', '9:00 AM', 'file', 'a.pdf', 1, ${at}, ${at})`.execute(db);
    await sql`insert into messages (id, user_id, date_message_id, type, content, filename, file_url, date, time, url, created_at,
        device_id, device_name)
      values (${messageId}, ${userId}, ${dayId}, 'file', '', 'a.pdf', '/api/files/f1', '11/1/2026', '9:00 AM', '', ${at},
        'session-1', 'Old phone')`.execute(db);
    await sql`insert into uploads (id, user_id, message_id, filename, mime, size, created_at)
      values ('f1', ${userId}, ${messageId}, 'a.pdf', 'application/pdf', 42, ${at})`.execute(db);
    await sql`insert into expired_messages (id, user_id, expired_at) values (${goneId}, ${userId}, ${at})`.execute(db);

    await migrate(db, schemaName ? { schema: schemaName } : {});

    const space = await db.selectFrom("spaces").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    expect(space).toMatchObject({ kind: "personal", title: "", public_id: null, created_by: userId, ends_at: null });
    expect(Number(space.created_at)).toBe(at);
    const members = await db.selectFrom("space_members").selectAll().where("space_id", "=", userId).execute();
    expect(members).toEqual([
      expect.objectContaining({ id: userId, user_id: userId, display_name: "Old Timer", role: "owner", left_at: null }),
    ]);
    const message = await db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirstOrThrow();
    expect(message).toMatchObject({ space_id: userId, user_id: userId, date_message_id: dayId, device_name: "Old phone" });
    expect((await db.selectFrom("uploads").select("space_id").where("id", "=", "f1").executeTakeFirstOrThrow()).space_id).toBe(userId);
    const gone = await db.selectFrom("expired_messages").select("space_id").where("id", "=", goneId).executeTakeFirstOrThrow();
    expect(gone.space_id).toBe(userId);
    // The change log goes on where it was.
    expect((await db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow()).seq).toBe(3);
  });
});

describe("009_send_indexes", () => {
  it("leaves the messages table only the indexes its queries use: each one costs every send a page", async () => {
    await migrate(db, schemaName ? { schema: schemaName } : {});
    const { rows } = schemaName
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename = 'messages' and indexname not like '%_pkey'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name = 'messages' and name not like 'sqlite_autoindex_%'`.execute(db);
    expect(rows.map((r) => r.name).sort()).toEqual(["messages_day", "messages_space_time"]);
  });
});

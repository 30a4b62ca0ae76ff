/**
 * Migration 026 on an installation whose audit log already holds numbers given twice (issue 42, point 9): they are
 * renumbered in their order, `seq` becomes unique, and the next entry goes on after the last.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminRepository } from "../modules/admin/admin.repository.ts";
import { createPgDatabaseFor } from "../testing/pg-database.ts";
import { connectDatabase, type Db } from "./database.ts";
import { createMigrator, migrate } from "./migrations.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-audit-seq-"));
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

describe("026_audit_sequence", () => {
  it("renumbers the numbers an older server gave twice, makes them unique, and counts on from the last", async () => {
    const options = schemaName ? { schema: schemaName } : {};
    expect((await createMigrator(db, options).migrateTo("025_invites")).error).toBeUndefined();
    const entry = (id: string, seq: number, at: number) =>
      sql`insert into admin_audit (id, seq, at, actor_id, actor_label, action, target_id, target_label, detail)
        values (${id}, ${seq}, ${at}, null, 'command line', 'role.set', null, 'x', '')`.execute(db);
    await entry("a", 1, 10);
    await entry("c", 2, 20);
    await entry("b", 2, 20);
    await entry("d", 3, 30);

    await migrate(db, options);

    const rows = await db.selectFrom("admin_audit").select(["id", "seq"]).orderBy("seq").execute();
    expect(rows.map((r) => [r.id, Number(r.seq)])).toEqual([
      ["a", 1],
      ["b", 2],
      ["c", 3],
      ["d", 4],
    ]);
    await createAdminRepository(db).audit({
      id: "e",
      at: 40,
      actor_id: null,
      actor_label: "command line",
      action: "role.set",
      target_id: null,
      target_label: "x",
      detail: "",
    });
    const next = await db.selectFrom("admin_audit").select("seq").where("id", "=", "e").executeTakeFirstOrThrow();
    expect(Number(next.seq)).toBe(5);
    await expect(entry("f", 5, 50)).rejects.toThrow(/unique/i);
  });
});

import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { reusePreparedStatements } from "./statement-cache.ts";

interface Db {
  notes: { id: number; text: string };
}

/** An in-memory database whose prepare calls are counted. */
function counted(max?: number) {
  const sqlite = new SQLite(":memory:");
  const prepared: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof sqlite.prepare;
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: reusePreparedStatements(sqlite, { max }) }) });
  return { db, prepared };
}

describe("prepared statements", () => {
  it("prepares a query shape once and reuses it with new values", async () => {
    const { db, prepared } = counted();
    await db.schema
      .createTable("notes")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("text", "text")
      .execute();
    for (let id = 1; id <= 5; id++)
      await db
        .insertInto("notes")
        .values({ id, text: `note ${id}` })
        .execute();
    const texts = [];
    for (let id = 1; id <= 5; id++) texts.push((await db.selectFrom("notes").select("text").where("id", "=", id).executeTakeFirst())?.text);
    expect(texts).toEqual(["note 1", "note 2", "note 3", "note 4", "note 5"]);
    expect(prepared.filter((sql) => sql.startsWith("insert"))).toHaveLength(1);
    expect(prepared.filter((sql) => sql.startsWith("select"))).toHaveLength(1);
    await db.destroy();
  });

  it("keeps at most `max` statements, dropping the least recently used", async () => {
    const { db, prepared } = counted(2);
    const one = db.selectNoFrom((eb) => eb.val(1).as("n"));
    const two = db.selectNoFrom((eb) => [eb.val(1).as("n"), eb.val(2).as("m")]);
    const three = db.selectNoFrom((eb) => [eb.val(1).as("n"), eb.val(2).as("m"), eb.val(3).as("k")]);
    for (const q of [one, two, one, three, one, two]) await q.execute();
    // "two" was the least recently used when "three" came, so only it is prepared again.
    expect(prepared).toHaveLength(4);
    await db.destroy();
  });
});

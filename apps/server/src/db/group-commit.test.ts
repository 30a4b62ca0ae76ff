import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { groupCommit } from "./group-commit.ts";
import type { Database } from "./schema.ts";

/** An in-memory database with one table, whose statements are counted by their first word. */
async function countedDb() {
  const sqlite = new SQLite(":memory:");
  const statements: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((text: string) => {
    const statement = prepare(text);
    const run = statement.run.bind(statement);
    statement.run = ((...args: unknown[]) => {
      statements.push(text.split(" ")[0] ?? "");
      return run(...args);
    }) as typeof statement.run;
    return statement;
  }) as typeof sqlite.prepare;
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await sql`create table notes (id integer primary key)`.execute(db);
  statements.length = 0;
  return { db, statements, sqlite };
}

const insertNote = (id: number) => (trx: Kysely<Database>) => sql`insert into notes (id) values (${id})`.execute(trx).then(() => id);

describe("group commit", () => {
  it("commits the works that arrive together once, without savepoints", async () => {
    const { db, statements, sqlite } = await countedDb();
    const transact = groupCommit(db);
    expect(await Promise.all([transact(insertNote(1)), transact(insertNote(2)), transact(insertNote(3))])).toEqual([1, 2, 3]);
    expect(sqlite.prepare("select id from notes order by id").all()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(statements).toEqual(["begin", "insert", "insert", "insert", "commit"]);
  });

  it("runs a batch with a failing work again one work at a time, so only that work fails", async () => {
    const { db, statements, sqlite } = await countedDb();
    const transact = groupCommit(db);
    const results = await Promise.allSettled([
      transact(insertNote(1)),
      transact(async (trx) => {
        await insertNote(2)(trx);
        throw new Error("this send fails");
      }),
      transact(insertNote(1)), // the id is taken by the first: a constraint error
      transact(insertNote(3)),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      1,
      "this send fails",
      expect.stringContaining("UNIQUE"),
      3,
    ]);
    expect(sqlite.prepare("select id from notes order by id").all()).toEqual([{ id: 1 }, { id: 3 }]);
    // The batch rolled back; then each alone: two commits, two rollbacks.
    expect(statements.filter((s) => s === "commit")).toHaveLength(2);
    expect(statements.filter((s) => s === "rollback")).toHaveLength(3);
  });

  it("starts the next batch with what arrived while one was running", async () => {
    const { db, statements, sqlite } = await countedDb();
    const transact = groupCommit(db);
    const first = transact(insertNote(1));
    await first;
    await Promise.all([transact(insertNote(2)), transact(insertNote(3))]);
    expect(sqlite.prepare("select count(*) as n from notes").get()).toEqual({ n: 3 });
    expect(statements.filter((s) => s === "commit")).toHaveLength(2);
  });

  it("rolls back a lone work that fails", async () => {
    const { db, sqlite } = await countedDb();
    const transact = groupCommit(db);
    await expect(
      transact(async (trx) => {
        await insertNote(1)(trx);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(sqlite.prepare("select count(*) as n from notes").get()).toEqual({ n: 0 });
  });
});

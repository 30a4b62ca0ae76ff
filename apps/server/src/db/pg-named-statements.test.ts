/** On PostgreSQL the hot queries run as named prepared statements: parsed once per connection, then only bound. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createPgDatabaseFor } from "../testing/pg-database.ts";
import { compiledOnce, statementNameOf } from "./compiled-query.ts";
import { connectDatabase, type Db } from "./database.ts";

const suiteDatabase = process.env.DATABASE_URL ?? "";

describe.runIf(suiteDatabase.startsWith("postgres"))("named prepared statements on PostgreSQL", () => {
  // Made in the test, not here: a skipped suite's body still runs (to list its tests) but not its afterAll.
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it("prepares a compiled-once query under its name once per connection and reruns it with new values", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-named-"));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const schema = await createPgDatabaseFor(suiteDatabase, dataDir);
    cleanup.push(schema.drop);
    const db = connectDatabase({ databaseFile: "", databaseUrl: schema.url });
    cleanup.push(() => db.destroy());
    await sql`create table notes (id integer primary key, text text not null)`.execute(db);
    await sql`insert into notes values (1, 'one'), (2, 'two')`.execute(db);
    const find = compiledOnce<"id", { text: string }>((_db, p) => sql<{ text: string }>`select text from notes where id = ${p.id}`);

    const { texts, prepared } = await db.transaction().execute(async (trx) => {
      const texts = [(await find(trx as Db, { id: 1 })).rows, (await find(trx as Db, { id: 2 })).rows];
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return { texts, prepared: prepared.rows };
    });

    expect(texts).toEqual([[{ text: "one" }], [{ text: "two" }]]);
    const findSql = "select text from notes where id = $1";
    const name = statementNameOf(findSql);
    expect(name).toMatch(/^daysync_[0-9a-f]{24}$/);
    // Once, under its name; the other queries of the transaction (not compiled once) stay unnamed.
    expect(prepared).toEqual([{ name, statement: findSql }]);
  });
});

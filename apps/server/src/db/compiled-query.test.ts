import SQLite from "better-sqlite3";
import { Kysely, type KyselyPlugin, SqliteDialect, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { compiledOnce, runInTransactionsDirectly } from "./compiled-query.ts";
import { reusePreparedStatements } from "./statement-cache.ts";

interface Db {
  notes: { id: number; text: string; tag: string };
}

async function notesDb() {
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
  await sql`create table notes (id integer primary key, text text, tag text)`.execute(db);
  return db;
}

describe("queries compiled once", () => {
  it("builds the query once per database and binds each call's values in place", async () => {
    let builds = 0;
    const insert = compiledOnce<"id" | "text", unknown>((db, p) => {
      builds++;
      return (db as Kysely<Db>).insertInto("notes").values({ id: p.id, text: p.text, tag: "fixed" });
    });
    const find = compiledOnce<"text", { id: number; tag: string }>(
      (_db, p) => sql<{ id: number; tag: string }>`select id, tag from notes where text = ${p.text} or tag = ${p.text} order by id`,
    );
    const first = await notesDb();
    const second = await notesDb();
    await insert(first, { id: 1, text: "one" });
    await insert(first, { id: 2, text: "two" });
    await insert(second, { id: 3, text: "three" });
    expect(builds).toBe(2);
    expect((await find(first, { text: "two" })).rows).toEqual([{ id: 2, tag: "fixed" }]);
    expect((await find(first, { text: "fixed" })).rows.map((r) => r.id)).toEqual([1, 2]);
    expect((await find(second, { text: "three" })).rows).toEqual([{ id: 3, tag: "fixed" }]);
  });

  it("runs inside a transaction of the database it was compiled for", async () => {
    const db = await notesDb();
    const insert = compiledOnce<"id", unknown>((d, p) => (d as Kysely<Db>).insertInto("notes").values({ id: p.id, text: "t", tag: "x" }));
    await insert(db, { id: 1 });
    await expect(
      db.transaction().execute(async (trx) => {
        await insert(trx, { id: 2 });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect((await db.selectFrom("notes").select("id").execute()).map((r) => r.id)).toEqual([1]);
  });

  it("inside a transaction on SQLite runs on the connection at once, with the transaction's writes, errors and rollback", async () => {
    // Every query that goes through Kysely passes its result through the plugins: this one counts them.
    let throughKysely = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        throughKysely++;
        return args.result;
      },
    };
    const statements = reusePreparedStatements(new SQLite(":memory:"));
    const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: statements }), plugins: [counting] });
    await sql`create table notes (id integer primary key, text text, tag text)`.execute(db);
    runInTransactionsDirectly(db, statements);
    const insert = compiledOnce<"id" | "text", unknown>((d, p) =>
      (d as Kysely<Db>).insertInto("notes").values({ id: p.id, text: p.text, tag: "t" }),
    );
    const find = compiledOnce<"id", { text: string }>((_d, p) => sql<{ text: string }>`select text from notes where id = ${p.id}`);

    await insert(db, { id: 1, text: "outside" });
    expect(throughKysely).toBe(2); // the table, then the insert outside a transaction

    await expect(
      db.transaction().execute(async (trx) => {
        const before = throughKysely;
        await trx.insertInto("notes").values({ id: 2, text: "by the builder", tag: "t" }).execute();
        expect((await find(trx, { id: 2 })).rows).toEqual([{ text: "by the builder" }]);
        await insert(trx, { id: 3, text: "inside" });
        expect((await find(trx, { id: 3 })).rows).toEqual([{ text: "inside" }]);
        // A failing statement rejects its call's promise, as through Kysely.
        await expect(insert(trx, { id: 1, text: "taken" })).rejects.toThrow(/UNIQUE constraint failed/);
        expect(throughKysely - before).toBe(1); // only the builder's insert
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");

    expect((await db.selectFrom("notes").select("id").execute()).map((r) => r.id)).toEqual([1]);
    expect((await find(db, { id: 1 })).rows).toEqual([{ text: "outside" }]);
  });
});

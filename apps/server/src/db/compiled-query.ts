/**
 * Hot queries built by Kysely once per database and then run with each call's values: building and compiling a
 * query cost about as much CPU as running it on SQLite (decision 014). The query is built with a placeholder
 * in place of each value (`p.name`); the compiled SQL is kept per dialect, and each run binds the values in the
 * order the placeholders took in it. Only for queries whose shape does not depend on the values (no `in` lists,
 * no optional clauses). On PostgreSQL each is also a named prepared statement, parsed and planned once per
 * connection (`pg-named-statements.ts`); on SQLite every statement is prepared once (`statement-cache.ts`), and inside
 * a transaction it runs on the connection at once (see `runInTransactionsDirectly`).
 */
import { createHash } from "node:crypto";
import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult, RawBuilder, SqliteDatabase } from "kysely";

/** The SQL of every query compiled here, by the name it is prepared under on PostgreSQL (`pg-named-statements.ts`). */
const statementNames = new Map<string, string>();

/** The name a hot query's SQL is prepared under, once per connection; undefined for any other SQL. */
export function statementNameOf(sql: string): string | undefined {
  return statementNames.get(sql);
}

class Placeholder {
  constructor(readonly name: string) {}
}

/** Stands for a value; typed `never` so that it fits wherever the builder expects a value. */
type Placeholders<K extends string> = Record<K, never>;

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** Per parameter of the SQL: the name of the value bound there, or a constant written into the query. */
  slots: readonly (Placeholder | { constant: unknown })[];
}

// biome-ignore lint/suspicious/noExplicitAny: any database schema: the query is typed by the builder.
type AnyKysely = Kysely<any>;

/** Per SQLite database (by its adapter, which its transactions share): where its statements are prepared. */
const sqliteStatements = new WeakMap<DialectAdapter, SqliteDatabase>();

/**
 * Inside a transaction of this SQLite database, the compiled-once queries run on its connection at once, without
 * Kysely's promises and objects per query, which every send paid for each of its statements (decision 014). Only
 * inside a transaction: there the caller holds SQLite's one connection (Kysely runs one transaction at a time on it),
 * so nothing else can be under way on it.
 */
export function runInTransactionsDirectly(db: AnyKysely, statements: SqliteDatabase): void {
  sqliteStatements.set(db.getExecutor().adapter, statements);
}

export function compiledOnce<K extends string, R>(build: (db: AnyKysely, p: Placeholders<K>) => Compilable<R> | RawBuilder<R>) {
  // The adapter is one per database (a transaction shares its database's), and decides how the SQL is written.
  const byAdapter = new WeakMap<DialectAdapter, Compiled<R>>();
  const placeholders = new Proxy({} as Placeholders<K>, { get: (_, name) => new Placeholder(String(name)) });

  function compile(db: AnyKysely): Compiled<R> {
    const built = build(db, placeholders);
    const query = "isRawBuilder" in built ? built.compile(db) : built.compile();
    const slots = query.parameters.map((value) => (value instanceof Placeholder ? value : { constant: value }));
    // Named after its text, so two queries never share a name and a name never changes its text.
    statementNames.set(query.sql, `daysync_${createHash("sha256").update(query.sql).digest("hex").slice(0, 24)}`);
    return { query, slots };
  }

  return async (db: AnyKysely, values: Record<K, unknown>): Promise<QueryResult<R>> => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      compiled = compile(db);
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) => (slot instanceof Placeholder ? values[slot.name as K] : slot.constant));
    const statements = db.isTransaction ? sqliteStatements.get(adapter) : undefined;
    if (statements) {
      const statement = statements.prepare(compiled.query.sql);
      if (statement.reader) return { rows: statement.all(parameters) as R[] };
      statement.run(parameters);
      return { rows: [] };
    }
    return db.executeQuery<R>({ ...compiled.query, parameters });
  };
}

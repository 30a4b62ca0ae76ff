/**
 * Opens the database chosen by config: PostgreSQL with a connection pool when DATABASE_URL is a postgres:// URL,
 * otherwise one SQLite file (DATA_DIR/daysync.sqlite by default) in WAL mode. Both get the same migrations.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { Config } from "../config/config.ts";
import { checkpointInBackground } from "./background-checkpoint.ts";
import { runInTransactionsDirectly } from "./compiled-query.ts";
import { migrate } from "./migrations.ts";
import { withNamedStatements } from "./pg-named-statements.ts";
import type { Database } from "./schema.ts";
import { reusePreparedStatements } from "./statement-cache.ts";

export type Db = Kysely<Database>;

export type DatabaseConfig = Pick<Config, "databaseFile"> & { databaseUrl?: string | undefined };

const INT8_OID = 20;

/** Times, sequence numbers and counts are bigint; they fit a JS number, and the code treats them as numbers. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createPgPool(url: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, types: pgTypes, max: 10, ...options });
  // An idle connection that breaks (the server restarts) is dropped by the pool; unheard, the error would end the
  // process. The next query opens a new connection, or fails and is answered and logged like any other error.
  pool.on("error", () => {});
  return pool;
}

function openSqlite(file: string): Db {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const checkpoint = checkpointInBackground(sqlite, file, {
    onFailure: (reason) => process.emitWarning(`SQLite checkpoints are back on the server's connection: ${reason}`),
    // Kysely runs one query or transaction at a time on the connection: holding it lets the worker's checkpoint finish.
    whileQuiet: (work) => db.connection().execute(work),
  });
  const statements = reusePreparedStatements(sqlite, { beforeClose: () => void checkpoint.stop() });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  runInTransactionsDirectly(db, statements);
  return db;
}

/** The query builder on the configured engine, without migrating (see `openDatabase`). */
export function connectDatabase(config: DatabaseConfig): Db {
  if (config.databaseUrl) {
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(createPgPool(config.databaseUrl)) }) });
  }
  return openSqlite(config.databaseFile);
}

export async function openDatabase(config: DatabaseConfig): Promise<Db> {
  const db = connectDatabase(config);
  try {
    if (config.databaseUrl) {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      await migrate(db, { schema: rows[0]?.schema ?? "public" });
    } else {
      await migrate(db);
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

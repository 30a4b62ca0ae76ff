/**
 * Opens the database chosen by config: PostgreSQL with a connection pool when DATABASE_URL is a postgres:// URL,
 * otherwise one SQLite file (DATA_DIR/daysync.sqlite by default) in WAL mode. Both get the same migrations.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type LogConfig, PostgresDialect, SqliteDialect, sql } from "kysely";
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

/** `onError`: told of each query that fails and each pooled connection that breaks (the metrics count them). */
export interface DatabaseHooks {
  onError?: ((error: unknown) => void) | undefined;
}

/** Kysely's log, for failed queries only; none at all unless someone listens (it costs every query a little). */
function errorLog(onError: DatabaseHooks["onError"]): LogConfig | undefined {
  return onError && ((event) => void (event.level === "error" && onError(event.error)));
}

const INT8_OID = 20;

/** Times, sequence numbers and counts are bigint; they fit a JS number, and the code treats them as numbers. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createPgPool(url: string, options: pg.PoolConfig = {}, onError: DatabaseHooks["onError"] = undefined): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, types: pgTypes, max: 10, ...options });
  // An idle connection that breaks (the server restarts) is dropped by the pool; unheard, the error would end the
  // process. The next query opens a new connection, or fails and is answered and logged like any other error.
  pool.on("error", (error) => onError?.(error));
  return pool;
}

function openSqlite(file: string, hooks: DatabaseHooks): Db {
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), log: errorLog(hooks.onError) });
  runInTransactionsDirectly(db, statements);
  return db;
}

/** The query builder on the configured engine, without migrating (see `openDatabase`). */
export function connectDatabase(config: DatabaseConfig, hooks: DatabaseHooks = {}): Db {
  if (config.databaseUrl) {
    const { onError } = hooks;
    const pool = withNamedStatements(createPgPool(config.databaseUrl, {}, onError));
    // A connection that cannot be had (the database is down) fails before any query Kysely's log would see.
    const counted: typeof pool = onError
      ? {
          async connect() {
            try {
              return await pool.connect();
            } catch (error) {
              onError(error);
              throw error;
            }
          },
          end: () => pool.end(),
        }
      : pool;
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool: counted }), log: errorLog(onError) });
  }
  return openSqlite(config.databaseFile, hooks);
}

export async function openDatabase(config: DatabaseConfig, hooks: DatabaseHooks = {}): Promise<Db> {
  const db = connectDatabase(config, hooks);
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

/** Resolves when the database answers a query: for the readiness check. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Opens the database chosen by config. Default: one SQLite file under DATA_DIR, in WAL mode. */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Config } from "../config/config.ts";
import { migrate } from "./migrations.ts";
import type { Database } from "./schema.ts";
import { reusePreparedStatements } from "./statement-cache.ts";

export type Db = Kysely<Database>;

export async function openDatabase(config: Pick<Config, "databaseFile">): Promise<Db> {
  mkdirSync(path.dirname(config.databaseFile), { recursive: true });
  const sqlite = new SQLite(config.databaseFile);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: reusePreparedStatements(sqlite) }) });
  await migrate(db);
  return db;
}

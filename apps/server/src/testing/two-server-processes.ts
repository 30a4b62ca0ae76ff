/**
 * Two server processes on one database, one Redis and one files folder, as when scaled out. The database is one
 * SQLite file under the shared DATA_DIR, or, when the suite runs on PostgreSQL, a database of its own on the suite's
 * PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPgDatabaseFor } from "./pg-database.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";
import { redisEnv, removeKeys, uniquePrefix } from "./test-redis.ts";

export interface TwoServerProcesses {
  one: ServerProcess;
  two: ServerProcess;
  dataDir: string;
  /** The PostgreSQL schema's URL, when the suite runs on PostgreSQL. */
  databaseUrl: string | undefined;
  /** Stops both processes and removes their folder, Redis keys and schema. */
  stop(): Promise<void>;
}

export async function startTwoServerProcesses(env: Record<string, string> = {}): Promise<TwoServerProcesses> {
  const prefix = uniquePrefix();
  const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-scale-"));
  const suiteDatabase = process.env.DATABASE_URL;
  const schema = suiteDatabase?.startsWith("postgres") ? await createPgDatabaseFor(suiteDatabase, dataDir) : undefined;
  const started: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await removeKeys(prefix);
    await schema?.drop();
  };
  const fullEnv = {
    ...redisEnv(prefix),
    DATA_DIR: dataDir,
    WEB_DIST: path.join(dataDir, "no-web"),
    REGISTER_RATE_LIMIT_MAX: "10000",
    ...(schema ? { DATABASE_URL: schema.url } : {}),
    ...env,
  };
  try {
    started.push(await startServerProcess(fullEnv));
    started.push(await startServerProcess(fullEnv));
  } catch (error) {
    await stop();
    throw error;
  }
  const [one, two] = started as [ServerProcess, ServerProcess];
  return { one, two, dataDir, databaseUrl: schema?.url, stop };
}

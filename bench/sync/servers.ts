/**
 * The server under test: one process on a fresh SQLite file (the default), or N processes on PostgreSQL + Redis
 * as a scaled-out installation runs them: one database (a fresh schema), one Redis (a fresh key prefix), one
 * shared FILES_DIR, a DATA_DIR each. Everything the run created is removed by `stop`.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../apps/server/src/config/config.ts";
import { type Measured, startMeasured } from "./processes.ts";
import { freshPrefix, freshSchema } from "./stores.ts";

export interface ServerOptions {
  processes: number;
  /** postgres://… for PostgreSQL; unset: SQLite in the (only) process's DATA_DIR. */
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  /** Node flags for every server process (e.g. --cpu-prof). */
  nodeFlags: string[];
  /** Where each process writes the CPU profile of the measured sends (server-0.cpuprofile, …); unset: none. */
  profileDir?: string | undefined;
  /** Another checkout whose server runs instead of this one's (with its own node_modules): a before/after pair. */
  serverTree?: string | undefined;
  /** Settings beside BENCH_ENV, for every process. */
  env?: Record<string, string>;
}

export interface Servers {
  processes: Measured[];
  /** What the run used, for the results file. */
  setup: { processes: number; database: "sqlite" | "postgres"; redis: boolean };
  /** MiB of the SQLite log file (-wal) now: it never shrinks below the most it held since it was last cut back. */
  sqliteLogMib(): number | null;
  stop(): Promise<void>;
}

export const BENCH_ENV = {
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  LOG_LEVEL: "warn",
  // Every bench user registers itself: after the first account the default would take invites only.
  REGISTRATION: "open",
  // The documented settings, lifted so the load is limited by the server, not by its abuse limits.
  LOGIN_RATE_LIMIT_MAX: "1000000",
  REGISTER_RATE_LIMIT_MAX: "1000000",
  SEND_RATE_LIMIT_MAX: "1000000",
  SEND_RATE_LIMIT_WINDOW_MS: "1000",
  // Every member of the discussion bench (--discussion-members) joins from this one address.
  DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "1000000",
  LIVE_SOCKETS_PER_SESSION: "1000",
  LIVE_SOCKETS_PER_USER: "100000",
  // bench:sync opens its sockets as fast as it can; bench:restart sets the rate it measures.
  LIVE_ACCEPT_PER_SECOND: "1000000",
  // As `npm run serve` sets it: glibc gives back each password hash's 19 MiB instead of keeping it (docs/deploy.md).
  MALLOC_MMAP_THRESHOLD_: "1048576",
};

/** The server as `npm run serve` runs it: the bundle `npm run build` makes (in `tree`, another checkout, when given). */
export function serverScript(tree = ""): string {
  const script = path.join(tree, "apps/server/dist/server/main.mjs");
  if (!existsSync(path.resolve(import.meta.dirname, "../..", script)))
    throw new Error(`${script} is missing: run npm run build${tree ? ` in ${tree}` : ""} first`);
  return script;
}

export function checkServerOptions(options: ServerOptions): string | undefined {
  if (!Number.isInteger(options.processes) || options.processes < 1) return "--processes: a whole number ≥ 1";
  if (options.databaseUrl && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) return "--database-url: a postgres:// URL";
  if (options.processes > 1 && (!options.databaseUrl || !options.redisUrl)) {
    return "--processes above 1 needs --database-url (PostgreSQL) and --redis-url: the processes share them";
  }
  return undefined;
}

/** The probe's settings for a window profile of the measured sends (see probe.ts). */
export const profileEnv = (dir: string | undefined, name: string): Record<string, string> =>
  dir ? { BENCH_PROFILE_DIR: dir, BENCH_PROFILE_NAME: name } : {};

export async function startServers(options: ServerOptions): Promise<Servers> {
  const root = mkdtempSync(path.join(os.tmpdir(), "daysync-sync-bench-"));
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(root, { recursive: true, force: true })];
  const processes: Measured[] = [];
  /** The SQLite file of the first process, as the server finds it from its settings; undefined on PostgreSQL. */
  let sqliteFile: string | undefined;
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const shared: Record<string, string> = {};
    if (options.databaseUrl) {
      const schema = await freshSchema(options.databaseUrl);
      cleanups.push(schema.drop);
      shared.DATABASE_URL = schema.url;
      console.error(`PostgreSQL schema ${schema.schema}`);
    }
    if (options.redisUrl) {
      const keys = freshPrefix(options.redisUrl);
      cleanups.push(keys.removeKeys);
      shared.REDIS_URL = options.redisUrl;
      shared.REDIS_PREFIX = keys.prefix;
    }
    if (options.processes > 1) {
      shared.FILES_DIR = path.join(root, "files");
      mkdirSync(shared.FILES_DIR);
    }
    // One after another: the first migrates the fresh schema, the others find it migrated.
    for (let i = 0; i < options.processes; i++) {
      const dataDir = path.join(root, `process-${i}`);
      mkdirSync(dataDir);
      const env = { ...BENCH_ENV, ...options.env, ...shared, DATA_DIR: dataDir };
      if (i === 0) {
        const config = loadConfig(env);
        sqliteFile = config.databaseUrl ? undefined : config.databaseFile;
      }
      processes.push(
        await startMeasured(
          serverScript(options.serverTree),
          "/api/health",
          { ...env, ...profileEnv(options.profileDir, `server-${i}`) },
          options.nodeFlags,
        ),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    processes,
    setup: { processes: options.processes, database: options.databaseUrl ? "postgres" : "sqlite", redis: Boolean(options.redisUrl) },
    sqliteLogMib: () => {
      const log = `${sqliteFile}-wal`;
      return sqliteFile && existsSync(log) ? Math.round((statSync(log).size / 1024 / 1024) * 10) / 10 : null;
    },
    stop,
  };
}

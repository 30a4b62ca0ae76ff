/**
 * A server watched for a server-blind check (docs/protocol/encryption.md, "How it is tested"): its own data folder,
 * its log at debug level, and on PostgreSQL and Redis a database of its own and a Redis MONITOR transcript of the
 * whole run. `kept()` gives everything it keeps or said, each with where it was: every file under its data folder
 * (the SQLite file with its WAL, the files folder), a `pg_dump` of its database, the Redis traffic and its log.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { createPgDatabaseFor } from "../../apps/server/src/testing/pg-database.ts";
import { type ServerProcess, startServerProcess } from "../../apps/server/src/testing/server-process.ts";
import { TEST_REDIS_URL, uniquePrefix } from "../../apps/server/src/testing/test-redis.ts";
import { filesUnder } from "./markers.ts";

const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface WatchedServer {
  server: ServerProcess;
  /** Everything the server keeps or said so far, by where. */
  kept(): Promise<{ where: string; bytes: Buffer }[]>;
  stop(): Promise<void>;
}

/** `pg`: on PostgreSQL and Redis, else SQLite. The push service may be the test's double on loopback (NODE_ENV test). */
export async function startWatchedServer(pg: boolean, tag: string): Promise<WatchedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `daysync-${tag}-`));
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: "debug", NODE_ENV: "test" };
  const redisTraffic: string[] = [];
  let database: Awaited<ReturnType<typeof createPgDatabaseFor>> | undefined;
  let redis: Redis | undefined;
  let monitor: Redis | undefined;
  if (pg) {
    database = await createPgDatabaseFor(PG_URL, dataDir);
    redis = new Redis(TEST_REDIS_URL);
    monitor = await redis.monitor();
    monitor.on("monitor", (_time: string, args: string[]) => redisTraffic.push(args.join(" ")));
    Object.assign(env, { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: uniquePrefix() });
  }
  const server = await startServerProcess(env, { captureOutput: true });
  return {
    server,
    async kept() {
      const kept = filesUnder(dataDir).map(({ name, bytes }) => ({ where: name, bytes }));
      if (database) {
        const { stdout } = await promisify(execFile)("pg_dump", ["--dbname", database.url], { maxBuffer: 512 * 1024 * 1024 });
        kept.push(
          { where: "pg_dump", bytes: Buffer.from(stdout) },
          { where: "Redis MONITOR", bytes: Buffer.from(redisTraffic.join("\n")) },
        );
      }
      kept.push({ where: "the server's log", bytes: Buffer.from(server.output()) });
      return kept;
    },
    async stop() {
      await server.stop();
      monitor?.disconnect();
      redis?.disconnect();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What several server processes share, isolated for one run on the shared PostgreSQL and Redis: a fresh schema
 * (the processes' connections use it through their search_path, as apps/server/src/testing/test-server.ts does)
 * and a Redis key prefix of the run's own; both are removed afterwards.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";

async function runAdmin(baseUrl: string, statement: string) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates a schema for this run; `url` is `baseUrl` pointed at it. */
export async function freshSchema(baseUrl: string): Promise<{ schema: string; url: string; drop(): Promise<void> }> {
  const schema = `daysync_bench_${randomUUID().replace(/-/g, "")}`;
  await runAdmin(baseUrl, `create schema "${schema}"`);
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { schema, url: url.href, drop: () => runAdmin(baseUrl, `drop schema if exists "${schema}" cascade`) };
}

/** A prefix for this run's keys and channels; `removeKeys` deletes every key under it, and only those. */
export function freshPrefix(redisUrl: string): { prefix: string; removeKeys(): Promise<number> } {
  const prefix = `daysync-bench:${randomUUID()}:`;
  return {
    prefix,
    async removeKeys() {
      const redis = new Redis(redisUrl);
      let removed = 0;
      try {
        for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
          if ((keys as string[]).length > 0) removed += await redis.del(...(keys as string[]));
        }
      } finally {
        await redis.quit();
      }
      return removed;
    },
  };
}

/** The Redis the tests share with other suites: each test server or test gets its own key prefix, and removes its keys. */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export const uniquePrefix = () => `daysync-test:${randomUUID()}:`;

/** Env of a server using the test Redis under `prefix`. */
export const redisEnv = (prefix: string) => ({ REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix });

/** Deletes every key under `prefix`, and only those. */
export async function removeKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
  } finally {
    await redis.quit();
  }
}

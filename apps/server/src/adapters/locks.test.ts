import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { removeKeys, TEST_REDIS_URL, uniquePrefix } from "../testing/test-redis.ts";
import { createInProcessLocks, createRedisLocks, type Locks } from "./locks.ts";

const prefix = uniquePrefix();
const connections: Redis[] = [];
afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit()));
  await removeKeys(prefix);
});

function redisLocks(): Locks {
  const redis = new Redis(TEST_REDIS_URL);
  connections.push(redis);
  return createRedisLocks(redis, prefix);
}

/** Two holders' views of the same locks: one process twice, or two processes on one Redis. */
const implementations: Array<[string, () => { a: Locks; b: Locks }]> = [
  [
    "in-process",
    () => {
      const locks = createInProcessLocks();
      return { a: locks, b: locks };
    },
  ],
  ["redis", () => ({ a: redisLocks(), b: redisLocks() })],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const name = () => `test-${n++}`;

describe.each(implementations)("locks (%s)", (_impl, make) => {
  it("has one holder at a time, and the next once it is released", async () => {
    const { a, b } = make();
    const key = name();
    const first = await a.tryAcquire(key, 5000);
    expect(first).toBeDefined();
    expect(await b.tryAcquire(key, 5000)).toBeUndefined();
    expect(await a.tryAcquire(key, 5000)).toBeUndefined();
    await first?.release();
    expect(await b.tryAcquire(key, 5000)).toBeDefined();
  });

  it("frees a lease its holder stopped renewing, and the old holder can no longer extend or release it", async () => {
    const { a, b } = make();
    const key = name();
    const stale = await a.tryAcquire(key, 50);
    await sleep(80);
    const next = await b.tryAcquire(key, 5000);
    expect(next).toBeDefined();
    expect(await stale?.extend()).toBe(false);
    await stale?.release();
    expect(await a.tryAcquire(key, 5000)).toBeUndefined();
  });

  it("keeps a lease its holder renews", async () => {
    const { a, b } = make();
    const key = name();
    // Renewed a second before it would end, and asked for a second after that end: a second either way, so a busy
    // machine's late timer (stop 51's CI beside another run was 400 ms late) does not decide it.
    const lease = await a.tryAcquire(key, 3000);
    await sleep(2000);
    expect(await lease?.extend()).toBe(true);
    await sleep(2000);
    expect(await b.tryAcquire(key, 3000)).toBeUndefined();
  });
});

import { ERRORS, type Locker } from "@tus/server";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createRedisBus } from "../events/redis-bus.ts";
import { removeKeys, TEST_REDIS_URL, uniquePrefix } from "../testing/test-redis.ts";
import { createRedisLocks } from "./locks.ts";
import { createSharedTusLocker, type SharedLockerOptions } from "./tus-locker.ts";

const prefix = uniquePrefix();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await removeKeys(prefix);
});

/** The upload locker of one server process. */
async function processLocker(options: SharedLockerOptions = { acquireTimeoutMs: 5000 }): Promise<Locker> {
  const publisher = new Redis(TEST_REDIS_URL);
  const subscriber = new Redis(TEST_REDIS_URL);
  const bus = await createRedisBus({ publisher, subscriber, prefix, onError: (e) => console.error(e) });
  const locker = createSharedTusLocker(createRedisLocks(publisher, prefix), bus, options);
  cleanups.push(async () => {
    locker.close();
    await Promise.all([publisher.quit(), subscriber.quit()]);
  });
  return locker;
}

const never = () => new AbortController().signal;

describe("tus upload lock between processes", () => {
  it("asks the process holding an upload to let go, and then gives the upload to the one waiting", async () => {
    const one = await processLocker();
    const two = await processLocker();
    const held = one.newLock("upload-1");
    let asked = 0;
    await held.lock(never(), async () => {
      asked++;
      await held.unlock();
    });
    const order: string[] = [];
    const waiting = two.newLock("upload-1");
    await waiting.lock(never(), () => {});
    order.push("second holds it");
    expect(asked).toBe(1);
    expect(order).toEqual(["second holds it"]);
    await waiting.unlock();
  });

  it("makes the second wait for as long as the first holds the upload, then fails with tus's lock timeout", async () => {
    const one = await processLocker();
    const two = await processLocker({ acquireTimeoutMs: 300 });
    const held = one.newLock("upload-2");
    await held.lock(never(), () => {});
    const started = Date.now();
    await expect(two.newLock("upload-2").lock(never(), () => {})).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    // Other uploads are not held up.
    const other = two.newLock("upload-3");
    await other.lock(never(), () => {});
    await other.unlock();
    await held.unlock();
  });

  it("ends the request holding an upload whose lease was lost", async () => {
    const locker = await processLocker({ leaseMs: 300 });
    const lock = locker.newLock("upload-4");
    let released = false;
    await lock.lock(never(), () => {
      released = true;
    });
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(`${prefix}lock:tus:upload-4`);
    await redis.quit();
    const until = Date.now() + 1000;
    while (!released && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(released).toBe(true);
    await lock.unlock();
  });
});

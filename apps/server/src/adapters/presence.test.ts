/** Presence across processes: two Redis presences on one prefix stand for two server processes. */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { removeKeys, TEST_REDIS_URL, uniquePrefix } from "../testing/test-redis.ts";
import { createInProcessPresence, createRedisPresence, type Presence } from "./presence.ts";

const opened: Array<{ presence: Presence; redis: Redis }> = [];
const prefixes: string[] = [];
const errors: unknown[] = [];

/** A process's presence, on a connection of its own; ttlMs short enough to see a dead process's sessions go. */
function processOn(prefix: string, ttlMs = 600) {
  const redis = new Redis(TEST_REDIS_URL);
  const presence = createRedisPresence(redis, prefix, { ttlMs, onError: (error) => errors.push(error) });
  opened.push({ presence, redis });
  return { presence, redis };
}

function twoProcesses() {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  return { one: processOn(prefix), two: processOn(prefix), prefix };
}

afterEach(async () => {
  for (const { presence, redis } of opened.splice(0)) {
    await presence.close();
    redis.disconnect();
  }
  for (const prefix of prefixes.splice(0)) await removeKeys(prefix);
  errors.length = 0;
});

describe("presence across processes", () => {
  it("shows a session open on one process as live on the other until it closes there", async () => {
    const { one, two } = twoProcesses();
    one.presence.opened("s1");
    await expect.poll(() => two.presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1"]));
    one.presence.closed("s1");
    await expect.poll(() => two.presence.liveAmong(["s1"])).toEqual(new Set());
    expect(errors).toEqual([]);
  });

  it("counts the devices online in every process, a session open in both once", async () => {
    const { one, two } = twoProcesses();
    one.presence.opened("s1");
    one.presence.opened("s2");
    two.presence.opened("s2");
    two.presence.opened("s3");
    await expect.poll(() => two.presence.liveCount()).toEqual({ count: 3, scope: "all" });
    one.presence.closed("s1");
    await expect.poll(() => one.presence.liveCount()).toEqual({ count: 2, scope: "all" });
    expect(errors).toEqual([]);
  });

  it("lets a killed process's sessions stop being live by themselves", async () => {
    const { one, two, prefix } = twoProcesses();
    one.presence.opened("s1");
    await expect.poll(() => two.presence.liveAmong(["s1"])).toEqual(new Set(["s1"]));
    one.redis.disconnect(); // it no longer renews nor cleans up, as after a SIGKILL

    await expect.poll(() => two.presence.liveAmong(["s1"]), { timeout: 3000 }).toEqual(new Set());
    const registry = new Redis(TEST_REDIS_URL);
    await expect.poll(() => registry.smembers(`${prefix}presence:processes`)).toEqual([]);
    registry.disconnect();
  });

  it("puts its open sessions back when Redis lost them", async () => {
    const { one, two, prefix } = twoProcesses();
    one.presence.opened("s1");
    one.presence.opened("s2");
    await expect.poll(() => two.presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1", "s2"]));
    await removeKeys(prefix);
    expect(await two.presence.liveAmong(["s1", "s2"])).toEqual(new Set());

    await expect.poll(() => two.presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1", "s2"]));
  });

  it("answers with what this process knows when Redis is unreachable", async () => {
    const { one } = twoProcesses();
    one.presence.opened("s1");
    one.redis.disconnect();
    expect(await one.presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1"]));
  });

  it("does not wait for Redis longer than its time limit while Redis is away", async () => {
    // Nothing listens there: ioredis keeps reconnecting and queues the commands meanwhile.
    const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true });
    redis.on("error", () => {});
    void redis.connect().catch(() => {});
    const presence = createRedisPresence(redis, uniquePrefix(), { askTimeoutMs: 300, onError: (error) => errors.push(error) });
    opened.push({ presence, redis });
    presence.opened("s1");

    const started = Date.now();
    expect(await presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1"]));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(String(errors.at(-1))).toContain("no answer within 300 ms");
  });
});

describe("presence in one process", () => {
  it("holds the sessions opened here until they close", async () => {
    const presence = createInProcessPresence();
    presence.opened("s1");
    expect(await presence.liveAmong(["s1", "s2"])).toEqual(new Set(["s1"]));
    presence.closed("s1");
    expect(await presence.liveAmong(["s1"])).toEqual(new Set());
  });
});

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniquePrefix } from "../testing/test-redis.ts";
import { createInProcessBus, type EventBus, subscribeUserChanges, type UserChange } from "./event-bus.ts";
import { createRedisBus } from "./redis-bus.ts";

const toClose: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of toClose.splice(0).reverse()) await close();
});

async function redisBus(prefix: string, onError: (error: unknown) => void = (e) => console.error(e)) {
  const publisher = new Redis(TEST_REDIS_URL);
  const subscriber = new Redis(TEST_REDIS_URL);
  const bus = await createRedisBus({ publisher, subscriber, prefix, onError });
  toClose.push(async () => {
    await bus.close();
    await Promise.all([publisher.quit(), subscriber.quit()]);
  });
  return { bus, publisher, subscriber };
}

/** Collects what a listener got and waits until it has `count` items (or fails after a second). */
function collector<T>() {
  const got: T[] = [];
  return {
    got,
    listener: (item: T) => void got.push(item),
    async waitFor(count: number) {
      const until = Date.now() + 1000;
      while (got.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(got).toHaveLength(count);
    },
  };
}

const change = (userId: string, seq: number): UserChange => ({
  userId,
  seq,
  event: { kind: "messages.deleted", ids: [`m${seq}`] },
});

/** Two ends of one bus, as two processes see it; the in-process bus is one end seen twice. */
const implementations: Array<[string, () => Promise<{ a: EventBus; b: EventBus }>]> = [
  [
    "in-process",
    async () => {
      const bus = createInProcessBus();
      return { a: bus, b: bus };
    },
  ],
  [
    "redis",
    async () => {
      const prefix = uniquePrefix();
      return { a: (await redisBus(prefix)).bus, b: (await redisBus(prefix)).bus };
    },
  ],
];

describe.each(implementations)("event bus (%s)", (_name, make) => {
  it("delivers each topic's payload, in order, to every subscriber of that topic only", async () => {
    const { a, b } = await make();
    const sessions = collector<unknown>();
    const pairings = collector<unknown>();
    const alsoSessions = collector<unknown>();
    b.subscribe("session.revoked", sessions.listener);
    b.subscribe("pairing.decided", pairings.listener);
    a.subscribe("session.revoked", alsoSessions.listener);
    a.publish("session.revoked", { userId: "u1", sessionId: "s1" });
    a.publish("session.revoked", { userId: "u1", sessionId: "s2" });
    await sessions.waitFor(2);
    await alsoSessions.waitFor(2);
    expect(sessions.got).toEqual([
      { userId: "u1", sessionId: "s1" },
      { userId: "u1", sessionId: "s2" },
    ]);
    expect(pairings.got).toEqual([]);
  });

  it("stops delivering after unsubscribe", async () => {
    const { a, b } = await make();
    const kept = collector<unknown>();
    const dropped = collector<unknown>();
    b.subscribe("pairing.decided", kept.listener);
    const stop = b.subscribe("pairing.decided", dropped.listener);
    stop();
    a.publish("pairing.decided", { requestId: "r1" });
    await kept.waitFor(1);
    expect(dropped.got).toEqual([]);
  });

  it("routes changes to the listeners of their user", async () => {
    const { a, b } = await make();
    const users = subscribeUserChanges(b);
    const alice = collector<UserChange>();
    const bob = collector<UserChange>();
    users.subscribe("alice", alice.listener);
    const stopBob = users.subscribe("bob", bob.listener);
    a.publish("change", change("alice", 1));
    a.publish("change", change("bob", 1));
    a.publish("change", change("alice", 2));
    await alice.waitFor(2);
    await bob.waitFor(1);
    expect(alice.got.map((c) => c.seq)).toEqual([1, 2]);
    expect(alice.got[0]).toEqual(change("alice", 1));
    stopBob();
    a.publish("change", change("bob", 2));
    a.publish("change", change("alice", 3));
    await alice.waitFor(3);
    expect(bob.got).toHaveLength(1);
    users.close();
  });
});

describe("redis bus", () => {
  it("keeps deployments with different prefixes apart", async () => {
    const one = await redisBus(uniquePrefix());
    const other = await redisBus(uniquePrefix());
    const got = collector<unknown>();
    const own = collector<unknown>();
    other.bus.subscribe("pairing.decided", got.listener);
    one.bus.subscribe("pairing.decided", own.listener);
    one.bus.publish("pairing.decided", { requestId: "r1" });
    await own.waitFor(1);
    expect(got.got).toEqual([]);
  });

  it("says when its connection came back, so listeners can look for what they missed", async () => {
    const prefix = uniquePrefix();
    const { bus, subscriber } = await redisBus(prefix);
    const sender = await redisBus(prefix);
    let reconnects = 0;
    bus.onReconnect(() => reconnects++);
    subscriber.disconnect(true);
    const until = Date.now() + 3000;
    while (reconnects === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(reconnects).toBe(1);
    // Subscribed again: the bus works as before.
    const got = collector<unknown>();
    bus.subscribe("pairing.decided", got.listener);
    sender.bus.publish("pairing.decided", { requestId: "after" });
    await got.waitFor(1);
  });
});

describe("the Redis bus reads what arrives through each topic's schema", () => {
  it("drops a malformed message (reported, never handed to a listener) and goes on with the next", async () => {
    const prefix = uniquePrefix();
    const errors: unknown[] = [];
    const { bus, publisher } = await redisBus(prefix, (e) => errors.push(e));
    const changes = collector<UserChange>();
    bus.subscribe("change", changes.listener);
    await publisher.publish(`${prefix}bus:change`, JSON.stringify({ userId: "u1", seq: "7", event: { kind: "nope" } }));
    await publisher.publish(`${prefix}bus:change`, "not json");
    bus.publish("change", change("u1", 8));
    await changes.waitFor(1);
    expect(changes.got).toEqual([change("u1", 8)]);
    expect(errors).toHaveLength(2);
  });
});

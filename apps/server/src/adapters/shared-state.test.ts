/** Two server processes (two apps here, one Redis and one database): what one does, the other sees. */
import {
  API,
  DEVICES_API,
  type DevicesResponse,
  LIVE_CLOSE,
  type Message,
  PAIRING_API,
  type PairingRequestCreated,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../admin.ts";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { redisEnv, removeKeys, uniquePrefix } from "../testing/test-redis.ts";
import { Device, startTestServer, TestClock, type TestServer, textMessage } from "../testing/test-server.ts";

const pairs: Array<{ a: TestServer; b: TestServer; prefix: string }> = [];

/** Two servers on one database and one Redis prefix. */
async function startPair(env: Record<string, string> = {}) {
  const prefix = uniquePrefix();
  const clock = new TestClock();
  // The sequence check is far off: what arrives here came over the bus.
  const fullEnv = { ...redisEnv(prefix), LIVE_SEQ_CHECK_MS: "600000", LOGIN_RATE_LIMIT_MAX: "1000", ...env };
  const first = await startTestServer(fullEnv, { clock });
  const second = await startTestServer(fullEnv, { clock, dataDir: first.dataDir });
  pairs.push({ a: first, b: second, prefix });
  return { a: first, b: second };
}

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  ({ a, b } = await startPair());
});
afterAll(async () => {
  for (const pair of pairs) {
    await pair.b.close({ keepData: true });
    await pair.a.close();
    await removeKeys(pair.prefix);
  }
});

/** One signed-in device whose requests go to `server`, and another session of the same user on the other one. */
async function twoDevices(email: string) {
  const one = new Device(a.url);
  const user = await one.register("Sam", email);
  const two = new Device(b.url);
  await two.login(email);
  return { user, one, two };
}

describe("two server processes", () => {
  it("pass a message sent on one to the same user's device connected to the other, live", async () => {
    const { one, two } = await twoDevices("sam@example.com");
    const live = await two.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const sent = await one.post<{ message: Message }>(API.messages, textMessage("across", a.clock.now()));
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "message.created"));
    const created = live.events().find((e) => e.event.kind === "message.created")?.event;
    expect(created).toMatchObject({ message: { id: sent.body.message.id, content: "across" } });
    live.close();
  });

  it("close a device's live socket on one when it signs out on the other", async () => {
    const { one } = await twoDevices("out@example.com");
    const sameSession = new Device(b.url);
    sameSession.cookie = one.cookie;
    const live = await sameSession.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    expect((await one.post(API.logout)).status).toBe(204);
    expect(await live.waitForClose(2000)).toBe(LIVE_CLOSE.sessionRevoked);
  });

  it("list a device whose live connection is open on the other as seen now, and when it went once closed", async () => {
    const { one, two } = await twoDevices("seen@example.com");
    const live = await two.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const twoId = (await two.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id;
    const seenFromOne = async () =>
      (await one.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.id === twoId)?.last_seen_at;

    a.clock.advance(10 * 60_000);
    await expect.poll(seenFromOne).toBe(a.clock.now());
    const wentAt = a.clock.now();
    live.close();
    const stored = async () =>
      Number(
        (
          await b.db
            .selectFrom("sessions")
            .select("last_seen_at")
            .where("id", "=", twoId ?? "")
            .executeTakeFirstOrThrow()
        ).last_seen_at,
      );
    await expect.poll(stored).toBe(wentAt);
    a.clock.advance(60_000);
    await expect.poll(seenFromOne).toBe(wentAt);
  });

  it("refuse a session signed out on one at once on the other, which had its lookup cached", async () => {
    const { one } = await twoDevices("cached@example.com");
    const sameSession = new Device(b.url);
    sameSession.cookie = one.cookie;
    expect((await sameSession.get(DEVICES_API.list)).status).toBe(200);
    expect((await one.post(API.logout)).status).toBe(204);
    // Well within the cache's own term (SESSION_CACHE_MS, 5 s): the sign-out's notice cleared it.
    await expect.poll(async () => (await sameSession.get(DEVICES_API.list)).status, { timeout: 1000 }).toBe(401);
  });

  it("tell a device waiting to pair on one that a device on the other approved it", async () => {
    const { one } = await twoDevices("pair@example.com");
    const created = await new Device(b.url).post<PairingRequestCreated>(PAIRING_API.requests);
    expect(created.status).toBe(201);
    const waiter = await PairWaiter.open(b.url, created.body.request_id, created.body.secret);
    await waiter.next("waiting");
    expect((await one.post(PAIRING_API.approve(created.body.code))).status).toBe(204);
    expect((await waiter.next("approved", 2000)).token).toBeTruthy();
  });

  it("count sign-in attempts together", async () => {
    const limited = await startPair({ LOGIN_RATE_LIMIT_MAX: "3" });
    const attempt = (server: TestServer) =>
      new Device(server.url).post(API.login, { email: "nobody@example.com", password: "wrong password" });
    expect((await attempt(limited.a)).status).toBe(401);
    expect((await attempt(limited.b)).status).toBe(401);
    expect((await attempt(limited.a)).status).toBe(401);
    expect((await attempt(limited.b)).status).toBe(429);
  });

  it("tell open devices of a plan changed with the admin command", async () => {
    const { one, user } = await twoDevices("plan@example.com");
    const live = await one.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const result = await runAdmin(["plan", "set", user.email, "premium"], a.env);
    expect(result.code).toBe(0);
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "user.updated"), 2000);
    const updated = live.events().find((e) => e.event.kind === "user.updated")?.event as { user: User };
    expect(updated.user.title_subscription).not.toBe(user.title_subscription);
    live.close();
  });

  it("sweep one at a time: an expired message is deleted and announced once", async () => {
    const { one } = await twoDevices("sweep@example.com");
    const sent = await one.post<{ message: Message }>(API.messages, textMessage("short-lived", a.clock.now()));
    const live = await one.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    a.clock.advance(16 * 60_000);
    const results = await Promise.all([a.sweeper.sweepAsLeader(), b.sweeper.sweepAsLeader()]);
    expect(results.filter((r) => r === undefined)).toHaveLength(1);
    expect(results.find((r) => r !== undefined)?.deletedMessages).toBeGreaterThanOrEqual(1);
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "messages.deleted"));
    await new Promise((r) => setTimeout(r, 300));
    const deletions = live.events().filter((e) => e.event.kind === "messages.deleted");
    expect(deletions.map((e) => e.event)).toEqual([{ kind: "messages.deleted", ids: [sent.body.message.id] }]);
    live.close();
  });
});

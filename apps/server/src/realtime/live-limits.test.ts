/** What bounds the work one user can put on the server through live sockets: replay size and pace, socket counts. */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { API, type DateMessages, LIVE_CLOSE, PAIR_LIVE_CLOSE, type ServerLiveMessage, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedMessageChanges } from "../testing/change-log-factory.ts";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { loadScaledMs } from "../testing/start-wait.ts";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const readyOf = (received: ServerLiveMessage[]) => received.find((m) => m.type === "ready");
const isReady = (received: ServerLiveMessage[]) => readyOf(received) !== undefined;

async function currentSeq(userId: string): Promise<number> {
  const row = await server.db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.seq);
}

/** A user whose change log ends at exactly `seq` changes, nearly all of them seeded messages. */
async function userWithChanges(name: string, seq: number): Promise<{ device: Device; user: User }> {
  const device = new Device(server.url);
  const user = await device.register(name, `${name.toLowerCase()}@example.com`);
  const sent = await device.post<{ day: DateMessages }>(API.messages, textMessage(`${name} first`, server.clock.now()));
  await seedMessageChanges(server.db, user.id, sent.body.day.id, seq - (await currentSeq(user.id)), server.clock.now());
  expect(await currentSeq(user.id)).toBe(seq);
  return { device, user };
}

/** Retries `attempt` until it stops throwing: the server notices a closed socket a moment after the client does. */
async function eventually<T>(attempt: () => Promise<T>, tries = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function openReady(device: Device): Promise<LiveClient> {
  const live = await device.live(0);
  await live.waitFor((r) => isReady(r) || live.closeCode !== undefined);
  if (!isReady(live.received)) throw new Error(`closed with ${live.closeCode} ${live.closeReason}`);
  return live;
}

describe("resume", () => {
  it(
    "replays 10,000 changes complete and in order, in batches that leave the server free for other work",
    async () => {
      const { device } = await userWithChanges("Many", 10_000);
      const lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
      const started = performance.now();
      const live = await device.live(0);
      await live.waitFor((r) => r.length > 0, 20_000);
      // Sent mid-replay: the health check is answered, and these changes arrive after the replay, in order.
      let healthAnsweredWhileReplaying: boolean | undefined;
      const health = device.get("/api/health").then((res) => {
        healthAnsweredWhileReplaying = res.status === 200 && !isReady(live.received);
      });
      for (const text of ["during replay 1", "during replay 2"]) await device.post(API.messages, textMessage(text, server.clock.now()));
      await live.waitFor(isReady, loadScaledMs(60_000));
      const replayMs = performance.now() - started;
      lag.disable();
      await health;
      const last = await currentSeq((await device.get<{ user: User }>(API.me)).body.user.id);
      await live.waitFor((r) => r.some((m) => m.type === "event" && m.seq === last));

      expect(readyOf(live.received)?.seq).toBe(10_000);
      expect(live.events().map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(live.received.findIndex((m) => m.type === "ready")).toBe(10_000);
      expect(healthAnsweredWhileReplaying).toBe(true);
      // Replayed in one go, the longest stall of the event loop is the whole replay; in batches, a small part of it.
      expect(lag.max / 1e6).toBeLessThan(replayMs / 3);
      live.close();
    },
    loadScaledMs(90_000),
  );

  it(
    "answers reset to a device more than 10,000 changes behind",
    async () => {
      const { device } = await userWithChanges("Behind", 10_001);
      const far = await device.live(0);
      await far.waitFor(isReady, loadScaledMs(10_000));
      expect(far.received).toEqual([
        { type: "reset", seq: 10_001 },
        { type: "ready", seq: 10_001 },
      ]);
      const near = await device.live(1);
      await near.waitFor(isReady, loadScaledMs(60_000));
      expect(near.events()).toHaveLength(10_000);
      expect(readyOf(near.received)?.seq).toBe(10_001);
      far.close();
      near.close();
    },
    loadScaledMs(90_000),
  );

  it("closes with 1008 on a second resume while one is in flight", async () => {
    const { device } = await userWithChanges("Twice", 3_000);
    const live = await device.connectLive();
    live.socket.send(JSON.stringify({ type: "resume", since: 0 }));
    live.socket.send(JSON.stringify({ type: "resume", since: 0 }));
    expect(await live.waitForClose(20_000)).toBe(LIVE_CLOSE.unknownMessage);
    expect(live.closeReason).toBe("One resume at a time");
    expect(isReady(live.received)).toBe(false);
    // After ready, resuming again is allowed.
    const again = await device.live(2_990);
    await again.waitFor(isReady);
    again.socket.send(JSON.stringify({ type: "resume", since: 2_995 }));
    await again.waitFor((r) => r.filter((m) => m.type === "ready").length === 2);
    expect(again.events().map((e) => e.seq)).toEqual([
      2_991, 2_992, 2_993, 2_994, 2_995, 2_996, 2_997, 2_998, 2_999, 3_000, 2_996, 2_997, 2_998, 2_999, 3_000,
    ]);
    again.close();
  }, 30_000);
});

describe("socket caps", () => {
  it("allows 8 live sockets per device; the 9th is closed with 4429", async () => {
    const device = new Device(server.url);
    await device.register("Tabs", "tabs@example.com");
    const open = await Promise.all(Array.from({ length: 8 }, () => openReady(device)));
    const ninth = await device.connectLive();
    expect(await ninth.waitForClose()).toBe(LIVE_CLOSE.tooManyConnections);
    expect(ninth.closeReason).toBe("Too many live connections for this device");
    // A closed socket frees its place.
    open[0]?.close();
    await open[0]?.waitForClose();
    open[0] = await eventually(() => openReady(device));
    for (const live of open) live.close();
  }, 30_000);

  it("allows 64 live sockets per account across its devices; the 65th is closed with 4429", async () => {
    const first = new Device(server.url);
    await first.register("Fleet", "fleet@example.com");
    const devices = [first];
    for (let i = 1; i < 9; i++) {
      const device = new Device(server.url);
      await device.login("fleet@example.com");
      devices.push(device);
    }
    const open: LiveClient[] = [];
    for (const device of devices.slice(0, 8)) open.push(...(await Promise.all(Array.from({ length: 8 }, () => openReady(device)))));
    expect(open).toHaveLength(64);
    const extra = await devices[8]?.connectLive();
    expect(await extra?.waitForClose()).toBe(LIVE_CLOSE.tooManyConnections);
    expect(extra?.closeReason).toBe("Too many live connections for this account");
    // Another account is not affected.
    const other = new Device(server.url);
    await other.register("Other", "other-fleet@example.com");
    (await openReady(other)).close();
    open[0]?.close();
    await open[0]?.waitForClose();
    const ninth = devices[8];
    if (ninth) open[0] = await eventually(() => openReady(ninth));
    for (const live of open) live.close();
  }, 60_000);

  it("takes its caps from LIVE_SOCKETS_PER_SESSION, LIVE_SOCKETS_PER_USER and PAIR_SOCKETS_PER_ADDRESS", async () => {
    const small = await startTestServer({ LIVE_SOCKETS_PER_SESSION: "1", LIVE_SOCKETS_PER_USER: "2", PAIR_SOCKETS_PER_ADDRESS: "1" });
    try {
      const phone = new Device(small.url);
      await phone.register("Few", "few@example.com");
      const laptop = new Device(small.url);
      await laptop.login("few@example.com");
      const tablet = new Device(small.url);
      await tablet.login("few@example.com");
      const open = [await openReady(phone)];
      const secondTab = await phone.connectLive();
      expect(await secondTab.waitForClose()).toBe(LIVE_CLOSE.tooManyConnections);
      open.push(await openReady(laptop));
      const third = await tablet.connectLive();
      expect(await third.waitForClose()).toBe(LIVE_CLOSE.tooManyConnections);
      expect(third.closeReason).toBe("Too many live connections for this account");
      const waiter = await PairWaiter.connect(small.url);
      const secondWaiter = await PairWaiter.connect(small.url);
      expect(await secondWaiter.waitForClose()).toBe(PAIR_LIVE_CLOSE.tooManyConnections);
      waiter.close();
      for (const live of open) live.close();
    } finally {
      await small.close();
    }
  });

  it("allows 16 waiting pairing sockets per address; the 17th is closed with 4429", async () => {
    const open = await Promise.all(Array.from({ length: 16 }, () => PairWaiter.connect(server.url)));
    const extra = await PairWaiter.connect(server.url);
    expect(await extra.waitForClose()).toBe(PAIR_LIVE_CLOSE.tooManyConnections);
    expect(extra.closeReason).toBe("Too many waiting devices from this address");
    open[0]?.close();
    await open[0]?.waitForClose();
    await eventually(async () => {
      const waiter = await PairWaiter.connect(server.url);
      await new Promise((r) => setTimeout(r, 50));
      if (waiter.closeCode !== undefined) throw new Error(`closed with ${waiter.closeCode}`);
      open[0] = waiter;
    });
    for (const waiter of open) waiter.close();
  });
});

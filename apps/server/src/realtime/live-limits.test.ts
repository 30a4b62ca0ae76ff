/** What bounds the work one user can put on the server through live sockets: replay size and pace, socket counts. */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { API, type DateMessages, LIVE_CLOSE, type ServerLiveMessage, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedMessageChanges } from "../testing/change-log-factory.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

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

describe("resume", () => {
  it("replays 10,000 changes complete and in order, in batches that leave the server free for other work", async () => {
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
    await live.waitFor(isReady, 60_000);
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
  }, 90_000);

  it("answers reset to a device more than 10,000 changes behind", async () => {
    const { device } = await userWithChanges("Behind", 10_001);
    const far = await device.live(0);
    await far.waitFor(isReady, 10_000);
    expect(far.received).toEqual([
      { type: "reset", seq: 10_001 },
      { type: "ready", seq: 10_001 },
    ]);
    const near = await device.live(1);
    await near.waitFor(isReady, 60_000);
    expect(near.events()).toHaveLength(10_000);
    expect(readyOf(near.received)?.seq).toBe(10_001);
    far.close();
    near.close();
  }, 90_000);

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

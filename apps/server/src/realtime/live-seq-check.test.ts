import { API, DEVICES_API, type DeviceListItem, LIVE_CLOSE, type User } from "@daysync/shared";
import { Redis } from "ioredis";
import type { Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../admin.ts";
import { feedRows } from "../app/repositories.ts";
import type { Database } from "../db/schema.ts";
import type { Change } from "../feed/change.ts";
import { createChangesRepository } from "../feed/changes.repository.ts";
import { keyStateRowsOfKeys } from "../modules/accounts/key-state.repository.ts";
import { sessionRowsOfDevices } from "../modules/accounts/sessions.repository.ts";
import { createDevicesRepository } from "../modules/devices/devices.repository.ts";
import { redisEnv, removeKeys, TEST_REDIS_URL, uniquePrefix } from "../testing/test-redis.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

/** A change logged as another process would, whose bus message never arrives here; its sequence number. */
async function appendOne(trx: Transaction<Database>, userId: string, change: Change, now: number): Promise<number> {
  const [logged] = await createChangesRepository(trx, feedRows).appendToUsers([userId], change, now);
  return logged?.seq ?? 0;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LIVE_SEQ_CHECK_MS: "200" });
});
afterAll(() => server.close());

describe("changes the bus lost", () => {
  it("reach an open device within seconds, once each and in order, from the database", async () => {
    const d = new Device(server.url);
    const user = await d.register("Lou", "lou@example.com");
    const live = await d.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const ready = live.received.find((m) => m.type === "ready");
    const start = ready?.type === "ready" ? ready.seq : 0;

    // Written as another process would, whose bus message never arrived here.
    const seq = await server.db
      .transaction()
      .execute((trx) => appendOne(trx, user.id, { kind: "user.updated", userId: user.id }, server.clock.now()));
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.seq === seq), 2000);
    expect(live.events().find((e) => e.seq === seq)?.event).toMatchObject({ kind: "user.updated", user: { id: user.id } });

    // What the bus does deliver afterwards follows on, and nothing arrives twice.
    await d.post(API.messages, textMessage("after the gap", server.clock.now()));
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "message.created"));
    await new Promise((r) => setTimeout(r, 500));
    const seqs = live.events().map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => start + 1 + i));
    live.close();
  });

  it("close the socket of a device signed out elsewhere, when the notice was lost", async () => {
    const phone = new Device(server.url);
    const user = await phone.register("Kim", "kim@example.com");
    const laptop = new Device(server.url);
    await laptop.login("kim@example.com");
    const devices = await phone.get<{ devices: DeviceListItem[] }>(DEVICES_API.list);
    const phoneSession = devices.body.devices.find((d) => d.current)?.id ?? "";
    const phoneLive = await phone.live();
    const laptopLive = await laptop.live();
    await phoneLive.waitFor((r) => r.some((m) => m.type === "ready"));
    await laptopLive.waitFor((r) => r.some((m) => m.type === "ready"));

    // The sign-out as another process writes it, without its bus messages.
    await server.db.transaction().execute(async (trx) => {
      await createDevicesRepository(trx, keyStateRowsOfKeys).dropKeysOfSession(user.id, phoneSession, server.clock.now());
      await sessionRowsOfDevices.delete(trx, user.id, phoneSession);
      await appendOne(trx, user.id, { kind: "device.signed_out", sessionId: phoneSession }, server.clock.now());
    });
    expect(await phoneLive.waitForClose(2000)).toBe(LIVE_CLOSE.sessionRevoked);
    await laptopLive.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "device.signed_out"), 2000);
    laptopLive.close();
  });
  it("bring an open device the plan set with the admin command, whose own bus reaches no server without Redis", async () => {
    const d = new Device(server.url);
    await d.register("Ada", "ada@example.com");
    const live = await d.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    expect((await runAdmin(["plan", "set", "ada@example.com", "premium"], server.env)).code).toBe(0);
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "user.updated"), 2000);
    const updated = live.events().find((e) => e.event.kind === "user.updated")?.event as { user: User };
    expect(updated.user.title_subscription).toBe("Premium plan");
    live.close();
  });
});

describe("when the bus reconnects", () => {
  it("each open device gets what was written meanwhile, without waiting for the next check", async () => {
    const prefix = uniquePrefix();
    // The timer is far off: only the reconnect can bring the change.
    const redisServer = await startTestServer({ ...redisEnv(prefix), LIVE_SEQ_CHECK_MS: "600000" });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const d = new Device(redisServer.url);
      const user = await d.register("Rey", "rey@example.com");
      const live = await d.live();
      await live.waitFor((r) => r.some((m) => m.type === "ready"));
      const seq = await redisServer.db
        .transaction()
        .execute((trx) => appendOne(trx, user.id, { kind: "user.updated", userId: user.id }, redisServer.clock.now()));
      // Only this server's subscriber connection is cut; the Redis is shared.
      const clients = String(await redis.call("CLIENT", "LIST")).split("\n");
      const ours = clients.find((line) => line.includes(` name=${prefix}subscriber `));
      const id = /(?:^|\s)id=(\d+)/.exec(ours ?? "")?.[1];
      expect(id).toBeDefined();
      await redis.call("CLIENT", "KILL", "ID", id ?? "");
      await live.waitFor((r) => r.some((m) => m.type === "event" && m.seq === seq), 3000);
      live.close();
    } finally {
      await redis.quit();
      await redisServer.close();
      await removeKeys(prefix);
    }
  });
});

/** A user's devices coming back together (after a restart) share each page of their replay while it is read. */
import { API, type ServerFrame } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepositories } from "../app/repositories.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { LIVE_LIMITS } from "./live-limits.ts";
import { type ReplayPages, replayChanges } from "./replay-changes.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("replays of one user's devices at once", () => {
  it("read the log once, and each device is sent every change it missed, once and in order", async () => {
    const phone = new Device(server.url);
    const user = await phone.register("Rhea Replay", "rhea-replay@example.com");
    const contents = ["one", "two", "three"];
    for (const content of contents) expect((await phone.post(API.messages, textMessage(content, server.clock.now()))).status).toBe(201);

    const repositories = createRepositories(server.db);
    let logReads = 0;
    const changes = {
      ...repositories.changes,
      changesBetween: (...args: Parameters<typeof repositories.changes.changesBetween>) => {
        logReads += 1;
        return repositories.changes.changesBetween(...args);
      },
    };
    const current = await repositories.changes.currentSeqs([user.id]);
    const pages: ReplayPages = new Map();
    const devices = Array.from({ length: 6 }, () => ({ sent: [] as ServerFrame[] }));
    const ends = await Promise.all(
      devices.map((device) =>
        replayChanges({
          pages,
          changes,
          currentSeq: async (userId) => current.get(userId) ?? 0,
          repositories,
          clock: server.clock,
          userId: user.id,
          since: 0,
          send: (message) => device.sent.push(message),
          isOpen: () => true,
        }),
      ),
    );

    expect(logReads).toBe(1);
    for (const [i, device] of devices.entries()) {
      expect(ends[i]).toBe(current.get(user.id));
      const texts = device.sent.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message.content] : []));
      expect(texts).toEqual(contents);
      const seqs = device.sent.map((m) => (m.type === "event" ? m.seq : -1));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }

    // A moment later the page is read again for the next device: what it refers to may have changed since.
    await expect.poll(() => pages.size, { timeout: LIVE_LIMITS.replayPageShareMs + 2000 }).toBe(0);
    await replayChanges({
      pages,
      changes,
      currentSeq: async (userId) => current.get(userId) ?? 0,
      repositories,
      clock: server.clock,
      userId: user.id,
      since: 0,
      send: () => undefined,
      isOpen: () => true,
    });
    expect(logReads).toBe(2);
  });

  it("leave out a message that expires while the page may still be shared, so no device is served it after its end", async () => {
    const phone = new Device(server.url);
    const user = await phone.register("Ewa Expiring", "ewa-expiring@example.com");
    expect((await phone.post(API.messages, textMessage("gone soon", server.clock.now()))).status).toBe(201);
    const repositories = createRepositories(server.db);
    const retentionMinutes = (await repositories.plans.retentionOf(user.id)) ?? 0;
    expect(retentionMinutes).toBeGreaterThan(0);
    // Half a page's sharing before the message's end: unexpired now, expired before a device could be sent it.
    server.clock.advance(retentionMinutes * 60_000 - LIVE_LIMITS.replayPageShareMs / 2);
    const current = await repositories.changes.currentSeqs([user.id]);
    const sent: ServerFrame[] = [];
    await replayChanges({
      pages: new Map(),
      changes: repositories.changes,
      currentSeq: async (userId) => current.get(userId) ?? 0,
      repositories,
      clock: server.clock,
      userId: user.id,
      since: 0,
      send: (message) => sent.push(message),
      isOpen: () => true,
    });
    const kinds = sent.flatMap((m) => (m.type === "event" ? [m.event.kind] : []));
    expect(kinds).toContain("day.upserted");
    expect(kinds).not.toContain("message.created");
  });
});

/** The pace at which a process takes live sockets (issue 47): a restart's thousands of devices come back in turn. */
import { LIVE_CLOSE, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";
import { acceptGate } from "./accept-gate.ts";

describe("acceptGate", () => {
  it("takes a tenth of a second's worth at once, then one more per 1/rate of a second", () => {
    let now = 0;
    const gate = acceptGate(50, () => now);
    const first = Array.from({ length: 8 }, () => gate.tryAccept());
    expect(first).toEqual([true, true, true, true, true, false, false, false]);
    now += 19;
    expect(gate.tryAccept()).toBe(false);
    now += 1;
    expect(gate.tryAccept()).toBe(true);
    expect(gate.tryAccept()).toBe(false);
    // Idle for long, it holds no more than the tenth of a second's worth.
    now += 60_000;
    expect(Array.from({ length: 6 }, () => gate.tryAccept()).filter(Boolean)).toHaveLength(5);
  });
});

describe("live sockets over the accept rate", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LIVE_ACCEPT_PER_SECOND: "5", LIVE_SOCKETS_PER_SESSION: "64" });
  });
  afterAll(() => server.close());

  it('are closed with 1013 "Try again shortly" before any work; those taken resume as usual', async () => {
    const device = new Device(server.url);
    await device.register("Storm", "storm@example.com");
    const started = performance.now();
    const sockets = await Promise.all(Array.from({ length: 12 }, () => device.live(0)));
    await Promise.all(sockets.map((s) => s.waitFor((r) => r.some((m) => m.type === "ready") || s.closeCode !== undefined, 10_000)));
    const elapsedMs = performance.now() - started;
    const refused = sockets.filter((s) => s.closeCode !== undefined);
    const taken = sockets.filter((s) => s.closeCode === undefined);
    // One at once (a tenth of a second of 5 a second, rounded up), and one more per 200 ms that passed meanwhile.
    expect(taken.length).toBeGreaterThanOrEqual(1);
    expect(taken.length).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / 200));
    for (const s of refused) {
      expect(s.closeCode).toBe(LIVE_CLOSE.tryAgainShortly);
      expect(s.closeReason).toBe("Try again shortly");
      // Turned away before the resume was read: nothing of the account was sent.
      expect(s.received).toEqual([]);
    }
    for (const s of taken) expect(s.received.some((m: ServerLiveMessage) => m.type === "ready")).toBe(true);
    for (const s of taken) s.close();

    // A moment later there is room again.
    await new Promise((r) => setTimeout(r, 250));
    const again = await device.live(0);
    await again.waitFor((r) => r.some((m) => m.type === "ready") || again.closeCode !== undefined);
    expect(again.closeCode).toBeUndefined();
    again.close();
  }, 30_000);
});

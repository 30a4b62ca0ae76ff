/** The live client's reconnections against a socket the test plays the server on: back-off, heartbeat, close codes. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LIVE_TIMING, retryDelay } from "./protocol.ts";
import { connectReady, event, settle, setUp } from "./testing/fake-socket.ts";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("back-off", () => {
  it("waits between half the ceiling and the ceiling, which doubles from 0.5 s with each failure, up to 30 s", () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map((failures) => retryDelay(failures, LIVE_TIMING, () => 1));
    expect(ceilings).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    expect(retryDelay(3, LIVE_TIMING, () => 0)).toBe(1000);
    expect(retryDelay(3, LIVE_TIMING, () => 0.5)).toBe(1500);
  });

  it("retries failed attempts after growing pauses and starts over once a connection is ready", async () => {
    const setup = setUp({ random: () => 1 });
    setup.client.start();
    for (const [i, pause] of [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000].entries()) {
      setup.latest().serverClose(1006);
      expect(setup.lost.at(-1)).toMatchObject({ handshakeFailed: true, failures: i + 1, everReady: false });
      await vi.advanceTimersByTimeAsync(pause - 1);
      expect(setup.sockets).toHaveLength(i + 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(setup.sockets).toHaveLength(i + 2);
    }
    await connectReady(setup, 0);
    setup.latest().serverClose(1006);
    expect(setup.lost.at(-1)).toMatchObject({ handshakeFailed: false, failures: 1, everReady: true });
    await vi.advanceTimersByTimeAsync(500);
    expect(setup.sockets).toHaveLength(10);
  });

  it("reconnectNow (the network is back) tries at once with the back-off started over", async () => {
    let online = false;
    const setup = setUp({ online: () => online });
    setup.client.start();
    expect(setup.sockets).toHaveLength(0);
    expect(setup.client.getStatus()).toBe("offline");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(setup.sockets).toHaveLength(0);

    online = true;
    setup.client.reconnectNow();
    expect(setup.sockets).toHaveLength(1);
    setup.latest().serverClose(1006);
    await vi.advanceTimersByTimeAsync(500);
    setup.latest().serverClose(1006);
    expect(setup.lost.at(-1)?.failures).toBe(2);
    setup.client.reconnectNow();
    expect(setup.sockets).toHaveLength(3);
    setup.latest().serverClose(1006);
    expect(setup.lost.at(-1)?.failures).toBe(1);
  });
});

describe("heartbeat", () => {
  it("pings every 20 s; any frame within 10 s keeps the socket, silence drops it and a new one resumes", async () => {
    const setup = setUp();
    setup.client.start();
    await connectReady(setup, 1);
    const socket = setup.latest();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(socket.sent.at(-1)).toEqual({ type: "ping" });
    await vi.advanceTimersByTimeAsync(9_000);
    socket.receive({ type: "pong" });
    await vi.advanceTimersByTimeAsync(11_000);
    expect(socket.closedWith).toBeUndefined();
    expect(socket.sent.filter((m) => m.type === "ping")).toHaveLength(2);
    socket.receive(event(2));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(socket.closedWith).toBeUndefined();

    await vi.advanceTimersByTimeAsync(20_000);
    expect(socket.closedWith).toBe(4000);
    expect(setup.client.getStatus()).toBe("offline");
    expect(setup.lost).toEqual([{ code: 1006, reason: "", handshakeFailed: false, failures: 1, everReady: true }]);
    await vi.advanceTimersByTimeAsync(500);
    expect(setup.sockets).toHaveLength(2);
    setup.latest().open();
    await settle();
    expect(setup.latest().sent).toEqual([{ type: "resume", since: 2 }]);
  });

  it("checkNow pings at once when connected, and connects at once when waiting to retry", async () => {
    const setup = setUp();
    setup.client.start();
    await connectReady(setup, 0);
    setup.client.checkNow();
    expect(setup.latest().sent.at(-1)).toEqual({ type: "ping" });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(setup.latest().closedWith).toBe(4000);
    expect(setup.sockets).toHaveLength(1);
    setup.client.checkNow();
    expect(setup.sockets).toHaveLength(2);
  });
});

describe("close codes", () => {
  it.each([
    [4401, "not signed in"],
    [4403, "signed out"],
  ])("%i (%s): stops for good and says the session ended", async (code) => {
    const setup = setUp();
    setup.client.start();
    await connectReady(setup, 0);
    setup.latest().serverClose(code);
    expect(setup.signedOut).toBe(1);
    expect(setup.lost).toEqual([]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(setup.sockets).toHaveLength(1);
  });

  it("4429 (every live socket allowed is taken): tries again only after 15 to 30 s, not at once", async () => {
    const setup = setUp({ random: () => 0 });
    setup.client.start();
    setup.latest().open();
    setup.latest().serverClose(4429, "Too many live connections for this device");
    expect(setup.lost).toEqual([
      { code: 4429, reason: "Too many live connections for this device", handshakeFailed: false, failures: 1, everReady: false },
    ]);
    await vi.advanceTimersByTimeAsync(15_000 - 1);
    expect(setup.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(setup.sockets).toHaveLength(2);
  });

  it("1013 (the server takes sockets at its pace): tries again after 5 to 10 s, then as the back-off grows past that", async () => {
    const setup = setUp({ random: () => 0 });
    setup.client.start();
    setup.latest().open();
    setup.latest().serverClose(1013, "Try again shortly");
    expect(setup.lost).toEqual([{ code: 1013, reason: "Try again shortly", handshakeFailed: false, failures: 1, everReady: false }]);
    // Not "offline": the server answers, it only takes sockets at its pace.
    expect(setup.client.getStatus()).toBe("busy");
    await vi.advanceTimersByTimeAsync(5_000 - 1);
    expect(setup.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(setup.sockets).toHaveLength(2);
    // Turned away again and again, the pause stays at 5 to 10 s until the usual one outgrows it: at the sixth, 8 to 16 s.
    for (const failures of [2, 3, 4, 5]) {
      setup.latest().open();
      setup.latest().serverClose(1013, "Try again shortly");
      await vi.advanceTimersByTimeAsync(5_000);
      expect(setup.sockets).toHaveLength(failures + 1);
    }
    setup.latest().open();
    setup.latest().serverClose(1013, "Try again shortly");
    await vi.advanceTimersByTimeAsync(8_000 - 1);
    expect(setup.sockets).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(1);
    expect(setup.sockets).toHaveLength(7);
  });

  it.each([1000, 1001, 1005, 1006, 1007, 1008, 1011, 4000])("%i: tries again with the usual back-off", async (code) => {
    const setup = setUp();
    setup.client.start();
    await connectReady(setup, 0);
    setup.latest().serverClose(code);
    expect(setup.lost).toEqual([{ code, reason: "", handshakeFailed: false, failures: 1, everReady: true }]);
    expect(setup.client.getStatus()).toBe("offline");
    await vi.advanceTimersByTimeAsync(500);
    expect(setup.sockets).toHaveLength(2);
  });
});

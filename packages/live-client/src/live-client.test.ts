/** The live client against a socket the test plays the server on, with the clock in the test's hands. */
import { setImmediate as nextTick } from "node:timers/promises";
import type { ClientLiveMessage, LiveEvent, ServerLiveMessage } from "@daysync/shared";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveClient, type LiveHandlers, type LiveSocket, type LiveStatus, type LostConnection } from "./live-client.ts";
import { LIVE_TIMING, retryDelay } from "./protocol.ts";

class FakeSocket implements LiveSocket {
  readyState = 0;
  readonly sent: ClientLiveMessage[] = [];
  closedWith: number | undefined;
  onopen: LiveSocket["onopen"] = null;
  onmessage: LiveSocket["onmessage"] = null;
  onclose: LiveSocket["onclose"] = null;
  onerror: LiveSocket["onerror"] = null;

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1005) {
    this.closedWith = code;
    this.readyState = 3;
  }
  // What the server and the network do:
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: ServerLiveMessage | Record<string, unknown> | string) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  serverClose(code: number, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

const deleted = (id: string): LiveEvent => ({ kind: "messages.deleted", ids: [id] });
const event = (seq: number, id = `m${seq}`): ServerLiveMessage => ({ type: "event", seq, event: deleted(id) });

/** Lets the client's queue of frames run. */
async function settle() {
  for (let i = 0; i < 5; i++) await nextTick();
}

function setUp(options: { position?: number; handlers?: Partial<LiveHandlers>; random?: () => number; online?: () => boolean } = {}) {
  const sockets: FakeSocket[] = [];
  const position = { value: options.position ?? 0 };
  const seen = {
    handled: [] as Array<{ seq: number; live: boolean }>,
    lost: [] as LostConnection[],
    statuses: [] as LiveStatus[],
    signedOut: 0,
    errors: [] as unknown[],
  };
  const client = new LiveClient({
    openSocket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    position: {
      get: () => position.value,
      set: (seq) => {
        position.value = seq;
      },
    },
    canConnect: options.online,
    random: options.random ?? (() => 1),
    handlers: {
      onEvent: (_event, { seq, live }) => void seen.handled.push({ seq, live }),
      onLost: (lost) => void seen.lost.push(lost),
      onStatus: (status) => void seen.statuses.push(status),
      onSignedOut: () => void seen.signedOut++,
      onError: (error) => void seen.errors.push(error),
      ...options.handlers,
    },
  });
  const latest = () => {
    const socket = sockets.at(-1);
    if (!socket) throw new Error("no socket opened");
    return socket;
  };
  return Object.assign(seen, { client, sockets, latest, position });
}

type Setup = ReturnType<typeof setUp>;

/** Opens the latest socket and answers its resume with `ready` at `seq`. */
async function connectReady(setup: Setup, seq: number) {
  setup.latest().open();
  await settle();
  setup.latest().receive({ type: "ready", seq });
  await settle();
}

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("resume by sequence", () => {
  it("resumes from the saved position, hands each later event over once and in order, and moves the position past it", async () => {
    const ready: unknown[] = [];
    const setup = setUp({ position: 5, handlers: { onReady: (info) => void ready.push(info) } });
    setup.client.start();
    const socket = setup.latest();
    socket.open();
    await settle();
    expect(socket.sent).toEqual([{ type: "resume", since: 5 }]);

    socket.receive(event(5));
    socket.receive(event(6));
    socket.receive(event(7));
    socket.receive(event(6));
    // A kind this client does not know (a newer server): counted past, not handed over.
    socket.receive({ type: "event", seq: 8, event: { kind: "something.new", at: 1 } });
    // Frames that are not the protocol's are ignored.
    socket.receive("not json");
    socket.receive({ type: "event", event: deleted("x") });
    socket.receive({ type: "ready", seq: "8" });
    socket.receive({ type: "ready", seq: 8 });
    await settle();
    expect(setup.handled).toEqual([
      { seq: 6, live: false },
      { seq: 7, live: false },
    ]);
    expect(ready).toEqual([{ seq: 8, resumedFrom: 5, reconnected: false }]);
    expect(setup.position.value).toBe(8);
    expect(setup.client.getStatus()).toBe("online");

    socket.receive(event(9));
    await settle();
    expect(setup.handled.at(-1)).toEqual({ seq: 9, live: true });
    expect(setup.position.value).toBe(9);
  });

  it("after a dropped connection, reconnects and resumes from the last event handled: it gets exactly what it missed", async () => {
    const ready: unknown[] = [];
    const setup = setUp({ handlers: { onReady: (info) => void ready.push(info) } });
    setup.client.start();
    await connectReady(setup, 3);
    setup.latest().receive(event(4));
    await settle();
    setup.latest().serverClose(1006);
    expect(setup.client.getStatus()).toBe("offline");
    expect(setup.lost).toEqual([{ code: 1006, reason: "", handshakeFailed: false, failures: 1, everReady: true }]);

    await vi.advanceTimersByTimeAsync(500);
    expect(setup.sockets).toHaveLength(2);
    setup.latest().open();
    await settle();
    expect(setup.latest().sent).toEqual([{ type: "resume", since: 4 }]);
    setup.latest().receive(event(5));
    setup.latest().receive(event(6));
    setup.latest().receive({ type: "ready", seq: 6 });
    setup.latest().receive(event(7));
    await settle();
    expect(setup.handled.map((h) => h.seq)).toEqual([4, 5, 6, 7]);
    expect(setup.handled.slice(1).map((h) => h.live)).toEqual([false, false, true]);
    expect(ready.at(-1)).toEqual({ seq: 6, resumedFrom: 4, reconnected: true });
    expect(setup.client.getStatus()).toBe("online");
  });

  it("handles one frame at a time, and a new connection's resume waits for the frame being handled", async () => {
    const slow = deferred();
    const setup = setUp({
      handlers: {
        onEvent: async (_event, { seq }) => {
          if (seq === 2) await slow.promise;
        },
      },
    });
    setup.client.start();
    await connectReady(setup, 1);
    setup.latest().receive(event(2));
    setup.latest().receive(event(3));
    setup.latest().serverClose(1006);
    await vi.advanceTimersByTimeAsync(500);
    setup.latest().open();
    await settle();
    expect(setup.position.value).toBe(1);
    expect(setup.latest().sent).toEqual([]);

    slow.resolve();
    await settle();
    expect(setup.position.value).toBe(3);
    expect(setup.latest().sent).toEqual([{ type: "resume", since: 3 }]);
  });

  it("a handler that throws is reported, its event's position is not saved, and the next frame is still handled", async () => {
    const setup = setUp({
      handlers: {
        onEvent: (_event, { seq }) => {
          if (seq === 2) throw new Error("cache update failed");
        },
      },
    });
    setup.client.start();
    await connectReady(setup, 1);
    setup.latest().receive(event(2));
    await settle();
    expect(setup.errors).toEqual([new Error("cache update failed")]);
    expect(setup.position.value).toBe(1);
    setup.latest().receive(event(3));
    await settle();
    expect(setup.position.value).toBe(3);
  });
});

describe("reset", () => {
  it("hands the catch-up to the app, and the position becomes the reset's seq only once it is done", async () => {
    const catchUp = deferred();
    const resets: number[] = [];
    const setup = setUp({
      position: 2,
      handlers: {
        onReset: async (seq) => {
          resets.push(seq);
          await catchUp.promise;
        },
      },
    });
    setup.client.start();
    setup.latest().open();
    await settle();
    setup.latest().receive({ type: "reset", seq: 50 });
    setup.latest().receive({ type: "ready", seq: 50 });
    setup.latest().receive(event(51));
    await settle();
    expect(resets).toEqual([50]);
    expect(setup.position.value).toBe(2);
    expect(setup.handled).toEqual([]);

    catchUp.resolve();
    await settle();
    expect(setup.handled).toEqual([{ seq: 51, live: true }]);
    expect(setup.position.value).toBe(51);
  });
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
    await vi.advanceTimersByTimeAsync(500);
    expect(setup.sockets).toHaveLength(2);
  });
});

describe("stop", () => {
  it("closes the socket, hands over nothing more, and never reconnects", async () => {
    const setup = setUp();
    setup.client.start();
    await connectReady(setup, 1);
    const socket = setup.latest();
    setup.client.stop();
    expect(socket.closedWith).toBe(1000);
    socket.receive(event(2));
    await settle();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(setup.handled).toEqual([]);
    expect(setup.sockets).toHaveLength(1);
    expect(setup.lost).toEqual([]);
  });
});

/** The live client against a socket the test plays the server on, with the clock in the test's hands: resume, reset, stop. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { connectReady, deferred, deleted, event, settle, setUp } from "./testing/fake-socket.ts";

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

/** Whatever a client sends on a live socket closes at most that socket: the server keeps serving everyone else. */
import type { Socket } from "node:net";
import { API, LIVE_CLOSE, PAIR_LIVE_CLOSE, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
let owner: Device;
let watcher: LiveClient;

beforeAll(async () => {
  server = await startTestServer();
  owner = new Device(server.url);
  await owner.register("Frame", "frame@example.com");
  watcher = await owner.live();
  await watcher.waitFor((r) => r.some((m) => m.type === "ready"));
});
afterAll(async () => {
  watcher.close();
  await server.close();
});

const createdContents = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message.content] : []));

/** The process still answers HTTP and still pushes live events to another device of the user. */
async function stillServing(label: string) {
  expect((await owner.get("/api/health")).status).toBe(200);
  const text = `still serving after ${label}`;
  expect((await owner.post(API.messages, textMessage(text, server.clock.now()))).status).toBe(201);
  await watcher.waitFor((r) => createdContents(r).includes(text));
}

const NOT_JSON = ["not json", "", "{", "\u0000"];
const NOT_A_MESSAGE = [
  "null",
  "[]",
  "1",
  '"x"',
  "true",
  "{}",
  '{"type":"resume"}',
  '{"type":"resume","since":-1}',
  '{"type":"resume","since":1.5}',
  '{"type":"resume","since":"0"}',
  '{"type":"resume","since":1e300}',
  '{"type":"nope"}',
  '{"type":null}',
  '{"type":{"toString":1}}',
  '{"__proto__":{"type":"ping"}}',
];

/** Writes bytes under the WebSocket framing, as a hostile client can. */
const rawSocket = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;
const MASK = [1, 2, 3, 4];
const RAW_FRAMES: Array<[string, number[]]> = [
  ["a reserved opcode", [0x83, 0x80, ...MASK]],
  ["an unmasked text frame", [0x81, 0x02, 0x68, 0x69]],
  ["a frame longer than the payload limit", [0x81, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, ...MASK]],
  ["a continuation without a start", [0x80, 0x80, ...MASK]],
  ["a fragmented ping", [0x09, 0x80, ...MASK]],
  ["a close frame with a forbidden code", [0x88, 0x82, ...MASK, 0x03 ^ 1, 0xed ^ 2]],
  ["garbage", [0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x13, 0x37]],
];

describe("/api/live client frames", () => {
  it.each(NOT_JSON)("closes with 1007 on the non-JSON text frame %j", async (frame) => {
    const live = await owner.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    live.socket.send(frame);
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.invalidFrame);
    expect(live.closeReason).toBe("Messages must be JSON text");
    await stillServing(JSON.stringify(frame));
  });

  it.each(NOT_A_MESSAGE)("closes with 1008 on the JSON frame %s, before or after resuming", async (frame) => {
    for (const resumeFirst of [false, true]) {
      const live = resumeFirst ? await owner.live() : await owner.connectLive();
      if (resumeFirst) await live.waitFor((r) => r.some((m) => m.type === "ready"));
      live.socket.send(frame);
      expect(await live.waitForClose()).toBe(LIVE_CLOSE.unknownMessage);
      expect(live.closeReason).toBe("Unknown message");
    }
    await stillServing(frame);
  });

  it("closes with 1007 on a binary frame, even one holding a valid message", async () => {
    const live = await owner.connectLive();
    live.socket.send(Buffer.from(JSON.stringify({ type: "resume", since: 0 })), { binary: true });
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.invalidFrame);
    expect(live.received).toEqual([]);
    await stillServing("a binary frame");
  });

  it("closes with 1007 on a text frame that is not UTF-8", async () => {
    const live = await owner.connectLive();
    live.socket.send(Buffer.from([0x7b, 0xc3, 0x28, 0xff, 0x7d]), { binary: false });
    expect(await live.waitForClose()).toBe(1007);
    await stillServing("invalid UTF-8");
  });

  it.each(RAW_FRAMES)("closes the socket on %s", async (label, bytes) => {
    const live = await owner.connectLive();
    rawSocket(live.socket).write(Buffer.from(bytes));
    await live.waitForClose();
    await stillServing(label);
  });
});

describe("/api/pair/live client frames", () => {
  it.each(NOT_JSON)("closes with 1007 on the non-JSON text frame %j", async (frame) => {
    const waiter = await PairWaiter.connect(server.url);
    waiter.socket.send(frame);
    expect(await waiter.waitForClose()).toBe(PAIR_LIVE_CLOSE.invalidFrame);
    expect(waiter.closeReason).toBe("Messages must be JSON text");
    await stillServing(`pairing ${JSON.stringify(frame)}`);
  });

  it.each([
    ...NOT_A_MESSAGE,
    '{"type":"wait"}',
    '{"type":"wait","request_id":"x","secret":"0123456789abcdef"}',
    `{"type":"wait","request_id":"${crypto.randomUUID()}","secret":7}`,
    `{"type":"wait","request_id":"${crypto.randomUUID()}","secret":"${"s".repeat(129)}"}`,
  ])("closes with 1008 on the JSON frame %s", async (frame) => {
    const waiter = await PairWaiter.connect(server.url);
    waiter.socket.send(frame);
    expect(await waiter.waitForClose()).toBe(PAIR_LIVE_CLOSE.unknownMessage);
    expect(waiter.closeReason).toBe("Expected a wait or watch message");
    await stillServing(`pairing ${frame}`);
  });

  it("closes with 1008 on a second message after the wait", async () => {
    const created = await new Device(server.url).post<{ request_id: string; secret: string }>("/api/pair/requests");
    const waiter = await PairWaiter.open(server.url, created.body.request_id, created.body.secret);
    await waiter.next("waiting");
    waiter.socket.send(JSON.stringify({ type: "wait", request_id: created.body.request_id, secret: created.body.secret }));
    expect(await waiter.waitForClose()).toBe(PAIR_LIVE_CLOSE.unknownMessage);
    expect(waiter.closeReason).toBe("Already waiting");
    await stillServing("a second wait");
  });

  it("closes with 1007 on a binary frame", async () => {
    const waiter = await PairWaiter.connect(server.url);
    waiter.socket.send(Buffer.from(JSON.stringify({ type: "wait", request_id: crypto.randomUUID(), secret: "0123456789abcdef" })), {
      binary: true,
    });
    expect(await waiter.waitForClose()).toBe(PAIR_LIVE_CLOSE.invalidFrame);
    await stillServing("a binary pairing frame");
  });

  it.each(RAW_FRAMES)("closes the socket on %s", async (label, bytes) => {
    const waiter = await PairWaiter.connect(server.url);
    rawSocket(waiter.socket).write(Buffer.from(bytes));
    await waiter.waitForClose();
    await stillServing(`pairing ${label}`);
  });
});

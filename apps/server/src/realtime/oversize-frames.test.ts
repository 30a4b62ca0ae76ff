/**
 * A frame over the WebSocket payload limit, on the live socket or the anonymous pairing one, closes that socket
 * with 1009 and costs the log at most one warning line (no stack) a minute, however many come.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { LOG_LEVEL, LogCapture } from "../testing/log-capture.ts";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";

const MESSAGE_TOO_BIG = 1009;
const OVERSIZE = "x".repeat(64 * 1024 + 1);

let server: TestServer;
let log: LogCapture;
let owner: Device;
beforeEach(async () => {
  log = new LogCapture();
  server = await startTestServer({ LOG_LEVEL: "warn" }, { logStream: log });
  owner = new Device(server.url);
  await owner.register("Big", "big@example.com");
});
afterEach(() => server.close());

function closeCode(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => socket.once("close", (code) => resolve(code)));
}

/** Sends one oversize frame on a new socket of that kind; resolves with the code the socket closed with. */
async function oversizeOn(kind: "live" | "pairing"): Promise<number> {
  const { socket } = kind === "live" ? await owner.connectLive() : await PairWaiter.connect(server.url);
  const closed = closeCode(socket);
  socket.send(OVERSIZE);
  return closed;
}

/** The server still answers and still takes a well-formed live socket. */
async function stillServing() {
  expect((await owner.get("/api/health")).status).toBe(200);
  const live = await owner.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  live.close();
}

function expectOneWarningWithoutStack() {
  const lines = log.atLeast(LOG_LEVEL.warn);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: LOG_LEVEL.warn, msg: "websocket frame refused", reason: "Max payload size exceeded" });
  expect(lines[0]).not.toHaveProperty("err");
  expect(log.raw.join("\n")).not.toMatch(/stack|\n\s+at /);
}

describe("an oversize WebSocket frame", () => {
  it.each(["live", "pairing"] as const)("on the %s socket closes it with 1009 and logs one warning line without a stack", async (kind) => {
    expect(await oversizeOn(kind)).toBe(MESSAGE_TOO_BIG);
    expectOneWarningWithoutStack();
    await stillServing();
  });

  it("logs at most one line a minute, the next one saying how many were left out", async () => {
    for (const kind of ["live", "pairing", "live", "pairing", "live"] as const) expect(await oversizeOn(kind)).toBe(MESSAGE_TOO_BIG);
    expectOneWarningWithoutStack();

    server.clock.advance(59_000);
    expect(await oversizeOn("pairing")).toBe(MESSAGE_TOO_BIG);
    expect(log.atLeast(LOG_LEVEL.warn)).toHaveLength(1);

    server.clock.advance(2_000);
    expect(await oversizeOn("live")).toBe(MESSAGE_TOO_BIG);
    const lines = log.atLeast(LOG_LEVEL.warn);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: LOG_LEVEL.warn, msg: "websocket frame refused", suppressed: 5 });
    await stillServing();
  });
});

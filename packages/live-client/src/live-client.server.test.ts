/** The live client on a `ws` socket against a real server: live changes, what was missed while away, a restart, a sign-out. */

import { randomUUID } from "node:crypto";
import { API, type LiveEvent } from "@daysync/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Device, startTestServer, type TestServer, textMessage } from "../../../apps/server/src/testing/test-server.ts";
import { LiveClient, type LiveHandlers, SocketSendDropped, SocketSendUnavailable } from "./live-client.ts";

let server: TestServer;
let ann: Device;

beforeEach(async () => {
  server = await startTestServer();
  ann = new Device(server.url);
  await ann.register("Ann", "ann@example.com");
});
afterEach(async () => {
  await server?.close();
});

async function send(content: string) {
  server.clock.advance(1000);
  const res = await ann.post(API.messages, textMessage(content, server.clock.now()));
  expect(res.status).toBe(201);
}

async function waitUntil(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A client of Ann's session that notes each message it is handed, with whether it came live or by replay. */
function annsClient(handlers: Partial<LiveHandlers> = {}) {
  const position = { seq: 0 };
  const received: Array<{ content: string; seq: number; live: boolean }> = [];
  const seen = { ready: 0, lost: 0, signedOut: 0, errors: [] as unknown[] };
  const cookie = ann.cookie;
  const client = new LiveClient({
    openSocket: () => new WebSocket(`${server.url.replace("http", "ws")}${API.live}`, { headers: { cookie } }),
    position: {
      get: () => position.seq,
      set: (seq) => {
        position.seq = seq;
      },
    },
    handlers: {
      onEvent: (event: LiveEvent, { seq, live }) => {
        if (event.kind === "message.created" && event.message.type === "text") received.push({ content: event.message.content, seq, live });
      },
      onReady: () => void seen.ready++,
      onLost: () => void seen.lost++,
      onSignedOut: () => void seen.signedOut++,
      onError: (error) => void seen.errors.push(error),
      ...handlers,
    },
  });
  return { client, position, received, seen };
}

describe("live client against the server", () => {
  it("receives changes live, and after being away resumes and gets exactly the missed ones, in order", async () => {
    const { client, position, received, seen } = annsClient();
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    await send("one");
    await waitUntil(() => received.length === 1);
    expect(received[0]).toMatchObject({ content: "one", live: true });

    client.stop();
    await send("two");
    await send("three");
    const away = position.seq;
    client.start();
    await waitUntil(() => seen.ready === 2);
    await send("four");
    await waitUntil(() => received.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map(({ content, live }) => ({ content, live }))).toEqual([
      { content: "one", live: true },
      { content: "two", live: false },
      { content: "three", live: false },
      { content: "four", live: true },
    ]);
    expect(received.map((r) => r.seq)).toEqual([away, away + 1, away + 2, away + 3]);
    expect(position.seq).toBe(away + 3);
    expect(seen.errors).toEqual([]);
    client.stop();
  });

  it("reconnects by itself after the server restarts and resumes where it was, nothing missed or twice", async () => {
    const { client, received, seen } = annsClient();
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    await send("before");
    await waitUntil(() => received.length === 1);

    const { dataDir, clock } = server;
    await server.close({ keepData: true });
    await waitUntil(() => client.getStatus() === "offline");
    server = await startTestServer({}, { dataDir, clock, port: Number(new URL(ann.baseUrl).port) });
    // Sent while the client is away or reconnecting: each comes once, by replay or live.
    await send("after 1");
    await send("after 2");
    await waitUntil(() => received.length === 3 && client.getStatus() === "online");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map((r) => r.content)).toEqual(["before", "after 1", "after 2"]);
    expect(seen.lost).toBeGreaterThan(0);
    client.stop();
  });

  it("after a restart, a server taking 10 sockets a second turns the rest away (1013); all 30 devices come back, nothing missed or twice", async () => {
    const { dataDir, clock } = server;
    const port = Number(new URL(ann.baseUrl).port);
    const restart = async (env: Record<string, string>) => {
      await server.close({ keepData: true });
      server = await startTestServer({ LIVE_SOCKETS_PER_SESSION: "64", ...env }, { dataDir, clock, port });
    };
    await restart({});
    const closes: number[] = [];
    const devices = Array.from({ length: 30 }, () => annsClient({ onLost: ({ code }) => void closes.push(code) }));
    for (const { client } of devices) client.start();
    await waitUntil(() => devices.every(({ client }) => client.getStatus() === "online"));
    await send("before");
    await waitUntil(() => devices.every(({ received }) => received.length === 1));

    await restart({ LIVE_ACCEPT_PER_SECOND: "10" });
    await send("after 1");
    await send("after 2");
    await waitUntil(() => devices.every(({ client, received }) => client.getStatus() === "online" && received.length === 3), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const { received, seen } of devices) {
      expect(received.map((r) => r.content)).toEqual(["before", "after 1", "after 2"]);
      expect(seen.errors).toEqual([]);
    }
    expect(closes.filter((code) => code === 1013).length).toBeGreaterThan(0);
    for (const { client } of devices) client.stop();
  }, 90_000);

  it("stops and says so when its session is signed out (4403)", async () => {
    const { client, seen } = annsClient();
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    const lostBefore = seen.lost;
    expect((await ann.post(API.logout)).status).toBeLessThan(300);
    await waitUntil(() => seen.signedOut === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen.lost).toBe(lostBefore);
    expect(seen.ready).toBe(1);
  });

  it("sends a message on the socket once it is current, and the same id again is answered as already stored", async () => {
    const { client, received } = annsClient();
    await expect(client.sendMessage(textMessage("too early", server.clock.now()))).rejects.toBeInstanceOf(SocketSendUnavailable);
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    const message = textMessage("over the socket", server.clock.now());
    expect(await client.sendMessage(message)).toMatchObject({ type: "sent", created: true, message: { id: message.id } });
    await waitUntil(() => received.some((r) => r.content === "over the socket"));
    expect(await client.sendMessage(message)).toMatchObject({ type: "sent", created: false, message: { id: message.id } });
    const refused = await client.sendMessage({ ...textMessage("", server.clock.now()) });
    expect(refused).toMatchObject({ type: "send_failed", status: 400, error: { code: "validation", field: "content" } });
    client.stop();
  });

  it("leaves to another road a message larger than a frame may be, and one whose socket goes before the answer", async () => {
    const { client } = annsClient();
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    const large = { ...textMessage("x", server.clock.now()), content: "é".repeat(40_000) };
    await expect(client.sendMessage(large)).rejects.toBeInstanceOf(SocketSendUnavailable);
    const dropped = client.sendMessage(textMessage("in flight", server.clock.now()));
    client.dropConnection();
    await expect(dropped).rejects.toBeInstanceOf(SocketSendDropped);
    client.stop();
  });

  it("deletes a message on the socket once it is current, and answers a second deletion and a bad id as HTTP does", async () => {
    const { client } = annsClient();
    const message = textMessage("to be deleted", server.clock.now());
    expect((await ann.post(API.messages, message)).status).toBe(201);
    await expect(client.deleteMessage(message.id)).rejects.toBeInstanceOf(SocketSendUnavailable);
    expect((await ann.get(API.message(message.id))).status).toBe(200);
    client.start();
    await waitUntil(() => client.getStatus() === "online");
    expect(await client.deleteMessage(message.id)).toEqual({ type: "deleted", ref: expect.any(String), deleted: 1 });
    expect((await ann.get(API.message(message.id))).status).toBe(404);
    const again = await client.deleteMessage(message.id);
    expect(again).toEqual({
      type: "delete_failed",
      ref: expect.any(String),
      status: 404,
      error: { code: "not_found", message: "No such message." },
    });
    expect(await client.deleteMessage(randomUUID())).toMatchObject({ type: "delete_failed", status: 404 });
    expect(await client.deleteMessage("nope")).toMatchObject({ type: "delete_failed", status: 400, error: { field: "id" } });
    // Sends and deletions in flight together each get their own answer.
    const next = textMessage("sent beside a deletion", server.clock.now());
    const [sentAnswer, deletedAnswer] = await Promise.all([client.sendMessage(next), client.deleteMessage(message.id)]);
    expect(sentAnswer).toMatchObject({ type: "sent", message: { id: next.id } });
    expect(deletedAnswer).toMatchObject({ type: "delete_failed", status: 404 });
    const dropped = client.deleteMessage(next.id);
    client.dropConnection();
    await expect(dropped).rejects.toBeInstanceOf(SocketSendDropped);
    client.stop();
  });
});

import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { loadScaledMs } from "../testing/start-wait.ts";
import { startHeartbeat } from "./heartbeat.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real ws server with `count` clients connected one by one: `server[i]` is the server's side of `clients[i]`. */
async function connected(count: number, options: { silent?: number } = {}): Promise<{ server: WebSocket[]; clients: WebSocket[] }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => wss.once("listening", resolve));
  const server: WebSocket[] = [];
  wss.on("connection", (socket) => server.push(socket));
  const { port } = wss.address() as AddressInfo;
  const clients: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    // The silent client never answers a ping.
    const client = new WebSocket(`ws://127.0.0.1:${port}`, { autoPong: i !== options.silent });
    await new Promise((resolve, reject) => {
      client.once("open", resolve);
      client.once("error", reject);
    });
    clients.push(client);
    await vi.waitFor(() => expect(server).toHaveLength(i + 1));
  }
  cleanups.push(async () => {
    for (const client of clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  });
  return { server, clients };
}

describe("heartbeat", () => {
  it("pings every socket a slice per event-loop turn, so other work runs between the slices", async () => {
    const { server, clients } = await connected(30);
    let pings = 0;
    for (const socket of server) {
      const ping = socket.ping.bind(socket);
      vi.spyOn(socket, "ping").mockImplementation(() => {
        pings += 1;
        ping();
      });
    }
    let pingsBeforeNextTurn: number | undefined;
    const heartbeat = startHeartbeat(
      () => {
        // Queued as the beat starts: it runs at the next turn, after the first slice.
        setImmediate(() => {
          pingsBeforeNextTurn ??= pings;
        });
        return server;
      },
      { everyMs: 100, perTurn: 10 },
    );
    cleanups.push(() => heartbeat.stop());
    const received = clients.map((client) => new Promise((resolve) => client.once("ping", resolve)));
    await Promise.all(received);
    expect(pingsBeforeNextTurn).toBe(10);
    expect(pings).toBe(30);
  });

  it("ends a socket that has not answered the previous ping, and keeps those that did", async () => {
    const { server, clients } = await connected(3, { silent: 0 });
    // A beat the answering clients, in this same busy process, can answer within (CI's run beside a build took
    // longer than 50 ms to read a pong and ended them).
    const everyMs = loadScaledMs(50);
    const heartbeat = startHeartbeat(() => server, { everyMs });
    cleanups.push(() => heartbeat.stop());
    for (const socket of server) heartbeat.watch(socket);
    const [ended] = server as [WebSocket];
    await new Promise((resolve) => ended.once("close", resolve));
    // Several beats later the answering ones are still open.
    await new Promise((resolve) => setTimeout(resolve, 4 * everyMs));
    expect(server.slice(1).map((socket) => socket.readyState)).toEqual([WebSocket.OPEN, WebSocket.OPEN]);
    expect(clients.slice(1).map((client) => client.readyState)).toEqual([WebSocket.OPEN, WebSocket.OPEN]);
  });
});

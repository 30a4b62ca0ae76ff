/** A page of another site, or an opaque (`null`) origin, cannot act with a user's cookie: no writes, no live sockets. */
import { API, PAIRING_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PairWaiter } from "../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
let device: Device;

beforeAll(async () => {
  server = await startTestServer();
  device = new Device(server.url);
  await device.register("Origin", "origin@example.com");
});
afterAll(() => server.close());

const FOREIGN = ["https://evil.example", "null", "http://127.0.0.1.evil.example", "not a url"];

/** What the upgrade of `pathname` answers: "open", or the HTTP status it was refused with and the body. */
function upgrade(pathname: string, headers: Record<string, string>): Promise<{ status: "open" } | { status: number; body: string }> {
  const socket = new WebSocket(`${server.url.replace("http", "ws")}${pathname}`, { headers });
  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      socket.close();
      resolve({ status: "open" });
    });
    socket.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.once("error", reject);
  });
}

describe("the Origin check", () => {
  it.each(FOREIGN)("refuses the /api/live upgrade from origin %j with 403, before the upgrade", async (origin) => {
    const answer = await upgrade(API.live, { cookie: device.cookie, origin });
    expect(answer).toEqual({
      status: 403,
      body: JSON.stringify({ error: { code: "forbidden", message: "Cross-site requests are not allowed." } }),
    });
  });

  it.each(FOREIGN)("refuses the /api/pair/live upgrade from origin %j with 403", async (origin) => {
    expect(await upgrade(PAIRING_API.live, { origin })).toMatchObject({ status: 403 });
  });

  it("opens both sockets from the server's own origin, and without any Origin (a non-browser client)", async () => {
    const withOrigin: Record<string, string>[] = [{ origin: server.url }, {}];
    for (const headers of withOrigin) {
      const live = await device.connectLive(headers);
      live.socket.send(JSON.stringify({ type: "resume", since: 0 }));
      await live.waitFor((r) => r.some((m) => m.type === "ready"));
      live.close();
      const waiter = await PairWaiter.connect(server.url, headers);
      waiter.close();
    }
  });

  it.each(FOREIGN)("refuses a write from origin %j with 403", async (origin) => {
    const res = await device.request("POST", API.messages, textMessage("from elsewhere", server.clock.now()), { origin });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: "forbidden", message: "Cross-site requests are not allowed." } });
  });

  it("accepts writes from the server's own origin and from clients that send no Origin", async () => {
    const same = await device.request("POST", API.messages, textMessage("same origin", server.clock.now()), { origin: server.url });
    expect(same.status).toBe(201);
    expect((await device.post(API.messages, textMessage("no origin", server.clock.now()))).status).toBe(201);
  });
});

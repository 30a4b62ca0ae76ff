/**
 * Sending over the live socket (issue 47): a `send` frame goes where `POST /api/messages` goes. One message whichever
 * road it took, the same limit across both, and a refusal answered as a frame with the HTTP answer's status and body.
 */
import { API, MAX_MESSAGE_LENGTH } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedAccount } from "../testing/key-devices.ts";
import { readyLive, sendFrame } from "../testing/socket-frames.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function signedIn(name: string, env: Record<string, string> = {}) {
  const on = Object.keys(env).length ? await startTestServer(env) : server;
  const device = new Device(on.url);
  const email = `${name.toLowerCase()}-${crypto.randomUUID()}@example.com`;
  await device.register(name, email);
  return { on, device, email };
}

async function storedIds(device: Device): Promise<string[]> {
  const page = await device.get<{ messages: Array<{ id: string }> }>(`${API.messages}?limit=200`);
  return page.body.messages.map((m) => m.id);
}

describe("a send frame on the live socket", () => {
  it("stores the message, answers what the HTTP send answers, and the user's other device hears it", async () => {
    const { device, email } = await signedIn("Sofia");
    const laptop = new Device(server.url);
    await laptop.login(email);
    const watching = await readyLive(laptop);
    const live = await readyLive(device);

    const message = textMessage("sent over the socket", server.clock.now());
    const answer = await sendFrame(live, message);
    expect(answer).toMatchObject({ type: "sent", created: true, message: { id: message.id, content: message.content } });
    await watching.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "message.created" && m.event.message.id === message.id),
    );

    // The same message over HTTP afterwards: the one already stored, as a retried HTTP send is answered.
    const again = await device.post(API.messages, message);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message: answer.type === "sent" ? answer.message : null, day: expect.any(Object) });
    expect((await storedIds(device)).filter((id) => id === message.id)).toHaveLength(1);
    live.close();
    watching.close();
  });

  it("a message sent over HTTP first and then as a frame is stored once, the frame answered as a resend", async () => {
    const { device } = await signedIn("Hugo");
    const live = await readyLive(device);
    const message = textMessage("HTTP first", server.clock.now());
    expect((await device.post(API.messages, message)).status).toBe(201);
    expect(await sendFrame(live, message)).toMatchObject({ type: "sent", created: false, message: { id: message.id } });
    expect((await storedIds(device)).filter((id) => id === message.id)).toHaveLength(1);
    live.close();
  });

  it("a socket dropped after the frame left and before its answer, then the outbox's retry over HTTP: one message", async () => {
    const { device } = await signedIn("Dora");
    for (let i = 0; i < 5; i++) {
      const live = await readyLive(device);
      const message = textMessage(`dropped mid-send ${i}`, server.clock.now());
      live.socket.send(JSON.stringify({ type: "send", ref: "r", body: message }));
      live.socket.terminate();
      const retried = await device.post(API.messages, message);
      expect([200, 201]).toContain(retried.status);
      expect((await storedIds(device)).filter((id) => id === message.id)).toHaveLength(1);
    }
  });

  it.each([
    ["empty content", { content: "" }],
    ["content too long", { content: "x".repeat(MAX_MESSAGE_LENGTH + 1) }],
    ["a date that is not one", { date: "2026-13-45" }],
    ["a day too far from now", { date: "1999-01-01" }],
    ["no id", { id: undefined }],
  ])("refuses %s with the HTTP answer's status and body, as a frame, and the socket stays open", async (_label, change) => {
    const { device } = await signedIn("Vera");
    const live = await readyLive(device);
    const body = { ...textMessage("valid at first", server.clock.now()), ...change };
    const http = await device.post(API.messages, body);
    expect(http.status).toBeGreaterThanOrEqual(400);
    expect(http.status).toBeLessThan(500);
    const answer = await sendFrame(live, body);
    expect(answer).toEqual({ type: "send_failed", ref: expect.any(String), status: http.status, ...http.body });
    // Still open and serving.
    expect(await sendFrame(live, textMessage("after the refusal", server.clock.now()))).toMatchObject({ type: "sent" });
    live.close();
  });

  it("refuses a clear text in an account whose messages are sealed, with the HTTP answer's words", async () => {
    const { keyed } = await keyedAccount(server, "Kai");
    const live = await readyLive(keyed.device);
    const body = textMessage("not sealed", server.clock.now());
    const http = await keyed.device.post(API.messages, body);
    expect(http.status).toBe(409);
    expect(await sendFrame(live, body)).toEqual({ type: "send_failed", ref: expect.any(String), status: 409, ...http.body });
    live.close();
  });

  it("counts against the device's one send limit, whichever road, and a 429 frame says what the HTTP 429 says", async () => {
    const { on, device, email } = await signedIn("Rita", { SEND_RATE_LIMIT_MAX: "3", SEND_RATE_LIMIT_WINDOW_MS: "60000" });
    try {
      const laptop = new Device(on.url);
      await laptop.login(email);
      const live = await readyLive(device);
      expect((await device.post(API.messages, textMessage("1 by HTTP", on.clock.now()))).status).toBe(201);
      expect(await sendFrame(live, textMessage("2 by socket", on.clock.now()))).toMatchObject({ type: "sent" });
      expect((await device.post(API.messages, textMessage("3 by HTTP", on.clock.now()))).status).toBe(201);
      const refused = await sendFrame(live, textMessage("4 by socket", on.clock.now()));
      const http = await device.post(API.messages, textMessage("5 by HTTP", on.clock.now()));
      expect(http.status).toBe(429);
      expect(refused).toEqual({
        type: "send_failed",
        ref: expect.any(String),
        status: 429,
        retry_after: expect.any(Number),
        error: { code: "rate_limited", message: expect.stringMatching(/^Too many messages\. Try again in \d+ seconds\.$/) },
      });
      expect(refused.type === "send_failed" && refused.retry_after).toBeLessThanOrEqual(60);
      // Another device of the account has its own count.
      expect(await sendFrame(await readyLive(laptop), textMessage("from the laptop", on.clock.now()))).toMatchObject({ type: "sent" });
      live.close();
    } finally {
      await on.close();
    }
  });

  it("a frame that is not a send at all still closes the socket", async () => {
    const { device } = await signedIn("Nina");
    for (const frame of [{ type: "send" }, { type: "send", ref: "" }, { type: "send", ref: "x".repeat(65), body: {} }]) {
      const live = await readyLive(device);
      live.socket.send(JSON.stringify(frame));
      expect(await live.waitForClose()).toBe(1008);
    }
  });
});

/** Another user, or nobody, is refused every route and subscription of user A. */
import { API, type DateMessages, type Message } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
let alice: Device;
let sent: { message: Message; day: DateMessages };
const SECRET = "alice's one-time code 424242";

beforeAll(async () => {
  server = await startTestServer();
  alice = new Device(server.url);
  await alice.register("Alice", "alice@example.com");
  sent = (await alice.post<{ message: Message; day: DateMessages }>(API.messages, textMessage(SECRET, server.clock.now()))).body;
});
afterAll(() => server.close());

async function asBob() {
  const bob = new Device(server.url);
  await bob.register(`Bob ${crypto.randomUUID()}`, `bob-${crypto.randomUUID()}@example.com`);
  return bob;
}

const routes = () => [
  { method: "GET", path: API.me },
  { method: "GET", path: API.days },
  { method: "GET", path: API.dayMessages(sent.day.id) },
  { method: "GET", path: `${API.search}?q=424242` },
  { method: "POST", path: API.messages, body: textMessage("intruder", Date.now()) },
  { method: "PUT", path: API.retention, body: { max_message_duration: null } },
];

describe("an anonymous client", () => {
  it("gets 401 from every user route", async () => {
    const anon = new Device(server.url);
    for (const r of routes()) {
      const res = await anon.request(r.method, r.path, r.body);
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
      expect(res.body).toEqual({ error: { code: "unauthenticated", message: "Please sign in to continue." } });
    }
  });

  it("gets 401 with a forged session cookie", async () => {
    const forged = new Device(server.url);
    forged.cookie = "daysync_session=forged-token";
    expect((await forged.get(API.days)).status).toBe(401);
  });

  it("cannot open a live connection", async () => {
    await expect(new Device(server.url).live()).rejects.toThrow("live refused: 401");
  });
});

describe("another signed-in user", () => {
  it("cannot read Alice's day, by id or in lists or search", async () => {
    const bob = await asBob();
    const day = await bob.get(API.dayMessages(sent.day.id));
    expect(day.status).toBe(404);
    expect(JSON.stringify(day.body)).not.toContain("424242");
    expect((await bob.get<{ days: DateMessages[] }>(API.days)).body.days).toEqual([]);
    expect((await bob.get<{ results: unknown[] }>(`${API.search}?q=424242`)).body.results).toEqual([]);
    const me = await bob.get<{ user: { email: string } }>(API.me);
    expect(me.body.user.email).not.toBe("alice@example.com");
  });

  it("cannot take over or read Alice's message by reusing its id", async () => {
    const bob = await asBob();
    const res = await bob.post(API.messages, { ...textMessage("hijack", server.clock.now()), id: sent.message.id });
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).not.toContain("424242");
    const stored = await alice.get<{ messages: Message[] }>(API.dayMessages(sent.day.id));
    expect(stored.body.messages.map((m) => m.content)).toEqual([SECRET]);
  });

  it("receives none of Alice's live events, even resuming from 0", async () => {
    const bob = await asBob();
    const live = await bob.live(0);
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    await alice.post(API.messages, textMessage("another secret 777", server.clock.now()));
    await new Promise((r) => setTimeout(r, 300));
    expect(JSON.stringify(live.received)).not.toContain("777");
    expect(live.events()).toEqual([]);
    live.close();
  });
});

/**
 * Expired means gone: once a message is past its plan's retention, no read, live event or answer carries
 * its text or counts it, whether the sweeper has deleted it yet or not.
 */
import { randomUUID } from "node:crypto";
import { API, type DateMessages, type LiveEvent, type Message, type SearchResult } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const MIN = 60_000;
/** Free plan retention, and a second more. */
const PAST_FREE_RETENTION = 15 * MIN + 1000;
const SECRET = "wifi password: hunter2";

type Sent = { message: Message; day: DateMessages };

async function freeUser(): Promise<Device> {
  const d = new Device(server.url);
  await d.register("Fay", `fay-${randomUUID()}@example.com`);
  return d;
}

/** A Free user whose only message, the secret, has just expired (not yet swept). */
async function withExpiredSecret(): Promise<{ d: Device; secret: Sent; input: ReturnType<typeof textMessage> }> {
  const d = await freeUser();
  const input = textMessage(SECRET, server.clock.now());
  const secret = (await d.post<Sent>(API.messages, input)).body;
  server.clock.advance(PAST_FREE_RETENTION);
  return { d, secret, input };
}

const emptySummary = { last_message: "", last_message_time: "", last_message_type: "", count_messages: 0 };

/** Opens a live connection that has replayed everything so far. */
async function liveFromNow(d: Device): Promise<LiveClient> {
  const live = await d.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return live;
}

const dayEvents = (live: LiveClient, after = 0) =>
  live
    .events()
    .slice(after)
    .flatMap((e) => (e.event.kind === "day.upserted" || e.event.kind === "message.created" ? [e.event.day] : []));

describe("the sweep", () => {
  it("recomputes the summary of each day it touched from what remains, stores it and sends day.upserted", async () => {
    const d = await freeUser();
    const secret = (await d.post<Sent>(API.messages, textMessage(SECRET, server.clock.now()))).body;
    server.clock.advance(5 * MIN);
    const younger = textMessage("younger", server.clock.now());
    await d.post(API.messages, younger);
    const live = await liveFromNow(d);
    const seen = live.events().length;

    server.clock.advance(10 * MIN + 1000);
    await server.sweeper.sweep();
    await live.waitFor(() => dayEvents(live, seen).length > 0);
    const kinds = live
      .events()
      .slice(seen)
      .map((e) => e.event.kind);
    expect(kinds).toEqual(["messages.deleted", "day.upserted"]);
    const oneLeft = { last_message: "younger", last_message_time: younger.time, last_message_type: "text", count_messages: 1 };
    expect(dayEvents(live, seen)[0]).toMatchObject({ id: secret.day.id, ...oneLeft });
    const stored = await server.db.selectFrom("date_messages").selectAll().where("id", "=", secret.day.id).executeTakeFirstOrThrow();
    expect({ ...stored, count_messages: Number(stored.count_messages) }).toMatchObject(oneLeft);

    const before = live.events().length;
    server.clock.advance(5 * MIN);
    await server.sweeper.sweep();
    await live.waitFor(() => dayEvents(live, before).length > 0);
    expect(dayEvents(live, before)[0]).toMatchObject({ id: secret.day.id, ...emptySummary });
    const emptied = await server.db.selectFrom("date_messages").selectAll().where("id", "=", secret.day.id).executeTakeFirstOrThrow();
    expect({ ...emptied, count_messages: Number(emptied.count_messages) }).toMatchObject(emptySummary);
    live.close();
  });
});

describe("between sweeps", () => {
  it("GET /api/days shows no expired text and counts only live messages", async () => {
    const { d, secret } = await withExpiredSecret();
    const days = (await d.get<{ days: DateMessages[] }>(API.days)).body.days;
    expect(days).toEqual([expect.objectContaining({ id: secret.day.id, ...emptySummary })]);
  });

  it("a day's messages come with the day's live summary", async () => {
    const { d, secret } = await withExpiredSecret();
    const res = await d.get<{ day: DateMessages; messages: Message[] }>(API.dayMessages(secret.day.id));
    expect(res.body.messages).toEqual([]);
    expect(res.body.day).toMatchObject({ id: secret.day.id, ...emptySummary });
  });

  it("a new send answers, and sends live, the day without the expired message", async () => {
    const { d, secret } = await withExpiredSecret();
    const live = await liveFromNow(d);
    const seen = live.events().length;
    const res = await d.post<Sent>(API.messages, textMessage("fresh", server.clock.now()));
    expect(res.status).toBe(201);
    expect(res.body.day).toMatchObject({ id: secret.day.id, last_message: "fresh", count_messages: 1 });
    await live.waitFor(() => dayEvents(live, seen).length > 0);
    expect(dayEvents(live, seen)[0]).toMatchObject({ id: secret.day.id, last_message: "fresh", count_messages: 1 });
    live.close();
  });

  it("a retried send of a live message answers the day without the expired one", async () => {
    const { d, secret } = await withExpiredSecret();
    const fresh = textMessage("fresh", server.clock.now());
    await d.post(API.messages, fresh);
    const again = await d.post<Sent>(API.messages, fresh);
    expect(again.status).toBe(200);
    expect(again.body.day).toMatchObject({ id: secret.day.id, last_message: "fresh", count_messages: 1 });
  });

  it("search results carry their day's live summary", async () => {
    const { d, secret } = await withExpiredSecret();
    await d.post(API.messages, textMessage("the new wifi is up", server.clock.now()));
    const found = await d.get<{ results: SearchResult[] }>(`${API.search}?q=wifi`);
    expect(found.body.results.map((r) => r.message.content)).toEqual(["the new wifi is up"]);
    expect(found.body.results[0]?.day).toMatchObject({ id: secret.day.id, last_message: "the new wifi is up", count_messages: 1 });
  });

  it("the live replay's day.upserted carries no expired text", async () => {
    const { d, secret } = await withExpiredSecret();
    const live = await liveFromNow(d);
    const events: LiveEvent[] = live.events().map((e) => e.event);
    expect(JSON.stringify(events)).not.toContain("hunter2");
    expect(dayEvents(live)).toEqual([expect.objectContaining({ id: secret.day.id, ...emptySummary })]);
    live.close();
  });
});

describe("a retried send of an expired message", () => {
  it("answers 410 expired, never the old text, before and after the sweep, and does not store it again", async () => {
    const { d, secret, input } = await withExpiredSecret();
    const expired = { error: { code: "expired", message: "This message has expired or was deleted." } };
    const beforeSweep = await d.post(API.messages, input);
    expect(beforeSweep.status).toBe(410);
    expect(beforeSweep.body).toEqual(expired);

    await server.sweeper.sweep();
    const afterSweep = await d.post(API.messages, input);
    expect(afterSweep.status).toBe(410);
    expect(afterSweep.body).toEqual(expired);
    const listed = await d.get<{ messages: Message[] }>(API.dayMessages(secret.day.id));
    expect(listed.body.messages).toEqual([]);
    const stored = await server.db.selectFrom("messages").select("id").where("id", "=", secret.message.id).execute();
    expect(stored).toEqual([]);

    // The id stays taken for other accounts, as a stored one is.
    const other = await freeUser();
    expect((await other.post(API.messages, input)).status).toBe(409);
  });
});

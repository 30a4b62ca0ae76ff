import { randomUUID } from "node:crypto";
import { API, type DateMessages, DEVICES_API, type Message, type SearchResult, VALIDATION } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
let ann: Device;
beforeAll(async () => {
  server = await startTestServer();
  ann = new Device(server.url);
  await ann.register("Ann", "ann@example.com");
});
afterAll(() => server.close());

type Sent = { message: Message; day: DateMessages };

describe("sending a text message", () => {
  it("creates today's day record and updates its summary", async () => {
    const input = textMessage("first message", server.clock.now());
    const res = await ann.post<Sent>(API.messages, input);
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ id: input.id, type: "text", content: "first message", date: input.date, time: input.time });
    expect(res.body.day).toMatchObject({
      date: input.date,
      count_messages: 1,
      last_message: "first message",
      last_message_type: "text",
      last_message_time: input.time,
    });
    const days = await ann.get<{ days: DateMessages[] }>(API.days);
    expect(days.body.days).toHaveLength(1);
    const listed = await ann.get<{ messages: Message[] }>(API.dayMessages(res.body.day.id));
    expect(listed.body.messages.map((m) => m.content)).toEqual(["first message"]);
  });

  it("never duplicates a retried send", async () => {
    const input = textMessage("sent twice", server.clock.now());
    const first = await ann.post<Sent>(API.messages, input);
    const again = await ann.post<Sent>(API.messages, input);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.message).toEqual(first.body.message);
    const listed = await ann.get<{ messages: Message[] }>(API.dayMessages(first.body.day.id));
    expect(listed.body.messages.filter((m) => m.id === input.id)).toHaveLength(1);
    expect(again.body.day.count_messages).toBe(first.body.day.count_messages);
  });

  it("counts right when many devices send at once", async () => {
    const before = (await ann.get<{ days: DateMessages[] }>(API.days)).body.days[0]?.count_messages ?? 0;
    const devices = await Promise.all(Array.from({ length: 4 }, () => new Device(server.url)));
    for (const d of devices) await d.login("ann@example.com");
    const sends = Array.from({ length: 40 }, (_, i) =>
      devices[i % 4]?.post<Sent>(API.messages, textMessage(`concurrent ${i}`, server.clock.now())),
    );
    const results = await Promise.all(sends);
    expect(results.every((r) => r?.status === 201)).toBe(true);
    const day = (await ann.get<{ days: DateMessages[] }>(API.days)).body.days[0];
    expect(day?.count_messages).toBe(before + 40);
    const listed = await ann.get<{ messages: Message[] }>(API.dayMessages(day?.id ?? ""));
    expect(listed.body.messages).toHaveLength(before + 40);
  });

  it("loses none of the sends made together when some of them are refused", async () => {
    const bob = new Device(server.url);
    await bob.register("Bob", `bob-${randomUUID()}@example.com`);
    const bobs = textMessage("bob's own", server.clock.now());
    expect((await bob.post<Sent>(API.messages, bobs)).status).toBe(201);
    const before = (await ann.get<{ days: DateMessages[] }>(API.days)).body.days[0]?.count_messages ?? 0;
    const resent = textMessage("sent before", server.clock.now());
    expect((await ann.post<Sent>(API.messages, resent)).status).toBe(201);
    const fresh = Array.from({ length: 6 }, (_, i) => textMessage(`together ${i}`, server.clock.now()));
    // Interleaved: refused (another user's id), new, resent (answered, not stored again), new…
    const inputs = fresh.flatMap((m, i) => [m, ...(i % 2 === 0 ? [{ ...bobs, content: "taken id" }] : [resent])]);
    const results = await Promise.all(inputs.map((input) => ann.post<Sent>(API.messages, input)));
    expect(results.map((r) => r.status)).toEqual(inputs.map((input) => (input.id === bobs.id ? 409 : input === resent ? 200 : 201)));
    const day = (await ann.get<{ days: DateMessages[] }>(API.days)).body.days[0];
    expect(day?.count_messages).toBe(before + 1 + fresh.length);
    const listed = await ann.get<{ messages: Message[] }>(API.dayMessages(day?.id ?? ""));
    expect(listed.body.messages.filter((m) => m.content.startsWith("together "))).toHaveLength(fresh.length);
    expect(listed.body.messages.some((m) => m.id === bobs.id)).toBe(false);
  });

  it.each([
    { case: "empty content", change: { content: "" }, field: "content", message: VALIDATION.message },
    { case: "blank content", change: { content: "   " }, field: "content", message: VALIDATION.message },
    { case: "an id that is no UUID", change: { id: "not-a-uuid" }, field: "id", message: "Message id must be a UUID." },
    { case: "a date in another format", change: { date: "2026-11-22" }, field: "date", message: "date must be M/d/yyyy." },
    { case: "a date that does not exist", change: { date: "2/30/2026" }, field: "date", message: "date must be a real calendar date." },
    { case: "a 24-hour time", change: { time: "25:00" }, field: "time", message: "time must be h:mm a." },
    {
      case: "a message too long",
      change: { content: "x".repeat(20_001) },
      field: "content",
      message: "A message is at most 20000 characters.",
    },
  ])("answers 400 for $case", async ({ change, field, message }) => {
    const res = await ann.post(API.messages, { ...textMessage("ok", server.clock.now()), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "validation", message, field } });
  });

  it("refuses a date that is not today anywhere", async () => {
    const res = await ann.post(API.messages, { ...textMessage("late", server.clock.now()), date: "1/1/2001" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: "date" } });
  });

  it("keeps one day record per calendar day, newest first", async () => {
    const bob = new Device(server.url);
    await bob.register("Bob", "bob@example.com");
    await bob.post(API.messages, textMessage("yesterday", server.clock.now()));
    server.clock.advance(86_400_000);
    await bob.post(API.messages, textMessage("today", server.clock.now()));
    const days = (await bob.get<{ days: DateMessages[] }>(API.days)).body.days;
    // Yesterday's message has expired (Free plan): its day stays, with nothing left to show.
    expect(days.map((d) => d.last_message)).toEqual(["today", ""]);
  });
});

describe("search", () => {
  it("finds the user's live messages by text across days, case-insensitively", async () => {
    const cy = new Device(server.url);
    await cy.register("Cy", "cy@example.com");
    const now = server.clock.now();
    await cy.post(API.messages, textMessage("The Wi-Fi password is hunter2", now - 60_000));
    await cy.post(API.messages, textMessage("wifi again", now));
    await cy.post(API.messages, textMessage("100% sure", now));
    const found = await cy.get<{ results: SearchResult[] }>(`${API.search}?q=${encodeURIComponent("WI-FI")}`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((r) => r.message.content)).toEqual(["The Wi-Fi password is hunter2"]);
    expect(found.body.results[0]?.day.date).toBeTruthy();
    const percent = await cy.get<{ results: SearchResult[] }>(`${API.search}?q=${encodeURIComponent("0%")}`);
    expect(percent.body.results.map((r) => r.message.content)).toEqual(["100% sure"]);
    const wildcard = await cy.get<{ results: SearchResult[] }>(`${API.search}?q=${encodeURIComponent("_")}`);
    expect(wildcard.body.results).toEqual([]);
  });

  it("answers 400 for an empty search", async () => {
    const res = await ann.get(`${API.search}?q=`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: "q" } });
  });

  it("refuses the NUL character by name (PostgreSQL cannot store it) in a search, a message and a device name", async () => {
    const search = await ann.get(`${API.search}?q=%00`);
    expect(search.status).toBe(400);
    expect(search.body).toMatchObject({ error: { field: "q", message: "A search must not contain the NUL character (U+0000)." } });
    const sent = await ann.post(API.messages, textMessage("a\u0000b", server.clock.now()));
    expect(sent.status).toBe(400);
    expect(sent.body).toMatchObject({ error: { field: "content", message: "A message must not contain the NUL character (U+0000)." } });
    const [device] = (await ann.get<{ devices: Array<{ id: string }> }>(DEVICES_API.list)).body.devices;
    const renamed = await ann.request("PATCH", DEVICES_API.one(device?.id ?? ""), { name: "phone\u0000" });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toMatchObject({ error: { field: "name" } });
  });

  it("answers 404 for a day id that does not exist", async () => {
    const res = await ann.get(API.dayMessages(randomUUID()));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "not_found", message: "No such day." } });
  });
});

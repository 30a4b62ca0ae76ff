import { API, type DateMessages, type Message, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const MIN = 60_000;

describe("retention", () => {
  it("deletes Free messages for good after 15 minutes, tells open devices, and keeps the day", async () => {
    const d = new Device(server.url);
    await d.register("Fay", "fay@example.com");
    const sent = await d.post<{ message: Message; day: DateMessages }>(API.messages, textMessage("short-lived", server.clock.now()));
    server.clock.advance(5 * MIN);
    await d.post(API.messages, textMessage("younger", server.clock.now()));
    const live = await d.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));

    server.clock.advance(10 * MIN + 1000);
    // Past 15 minutes the message is no longer returned, even before the sweep runs.
    const before = await d.get<{ messages: Message[] }>(API.dayMessages(sent.body.day.id));
    expect(before.body.messages.map((m) => m.content)).toEqual(["younger"]);

    const result = await server.sweeper.sweep();
    expect(result.deletedMessages).toBeGreaterThanOrEqual(1);
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "messages.deleted"));
    const deleted = live.events().find((e) => e.event.kind === "messages.deleted");
    expect(deleted?.event).toEqual({ kind: "messages.deleted", ids: [sent.body.message.id] });

    const row = await server.db.selectFrom("messages").select("id").where("id", "=", sent.body.message.id).executeTakeFirst();
    expect(row).toBeUndefined();
    const days = await d.get<{ days: DateMessages[] }>(API.days);
    expect(days.body.days.map((x) => x.id)).toEqual([sent.body.day.id]);
    const search = await d.get<{ results: unknown[] }>(`${API.search}?q=short-lived`);
    expect(search.body.results).toEqual([]);
    live.close();
  });

  it("keeps Premium messages for the retention the user picked", async () => {
    const d = new Device(server.url);
    await d.register("Pam", "pam@example.com");
    expect((await runAdmin(["plan", "set", "pam@example.com", "premium"], server.env)).code).toBe(0);
    const unlimited = await d.request<{ user: User }>("PUT", API.retention, { max_message_duration: null });
    expect(unlimited.status).toBe(200);
    expect(unlimited.body.user.max_message_duration).toBeNull();
    await d.post(API.messages, textMessage("forever", server.clock.now()));
    server.clock.advance(90 * 24 * 60 * MIN);
    await server.sweeper.sweep();
    // 90 days on, the Premium subscription (30 days) has expired and fallen back to Free: 15 minutes again.
    const me = await d.get<{ user: User }>(API.me);
    expect(me.body.user.title_subscription).toBe("Free plan");
    expect(me.body.user.max_message_duration).toBe(15);
  });

  it("renews a Free subscription when it expires", async () => {
    const d = new Device(server.url);
    const user = await d.register("Ren", "ren@example.com");
    server.clock.advance(61 * 24 * 60 * MIN);
    const { renewedSubscriptions } = await server.sweeper.sweep();
    expect(renewedSubscriptions).toBeGreaterThanOrEqual(1);
    const me = (await d.get<{ user: User }>(API.me)).body.user;
    expect(me.actual_subscription_id).not.toBe(user.actual_subscription_id);
    expect(me.title_subscription).toBe("Free plan");
    expect(Date.parse(me.date_expiration_subscription)).toBe(server.clock.now() + 60 * 24 * 60 * MIN);
  });
});

describe("operator plan command", () => {
  it("grants Premium and returns to Free; only Premium may pick the retention", async () => {
    const d = new Device(server.url);
    await d.register("Opa", "opa@example.com");
    const refused = await d.request("PUT", API.retention, { max_message_duration: 1440 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: "forbidden", message: "Choosing the retention needs the Premium plan." } });

    const granted = await runAdmin(["plan", "set", "OPA@example.com", "premium"], server.env);
    expect(granted).toMatchObject({ code: 0 });
    expect(granted.output).toContain("Premium plan");
    const premium = (await d.get<{ user: User }>(API.me)).body.user;
    expect(premium).toMatchObject({
      title_subscription: "Premium plan",
      subscription_type_id: 2,
      price_per_month: 4.99,
      subscription_duration: 30,
      max_message_duration: 60,
    });
    const picked = await d.request<{ user: User }>("PUT", API.retention, { max_message_duration: 1440 });
    expect(picked.body.user.max_message_duration).toBe(1440);
    const invalid = await d.request("PUT", API.retention, { max_message_duration: 5 });
    expect(invalid.status).toBe(400);

    expect((await runAdmin(["plan", "set", "opa@example.com", "free"], server.env)).code).toBe(0);
    expect((await d.get<{ user: User }>(API.me)).body.user.max_message_duration).toBe(15);
  });

  it("explains its usage and unknown users", async () => {
    expect(await runAdmin(["plan", "set", "opa@example.com", "gold"], server.env)).toEqual({
      code: 2,
      output: expect.stringContaining("Usage: npm run admin -- plan set EMAIL premium|free"),
    });
    expect(await runAdmin(["plan", "set", "ghost@example.com", "premium"], server.env)).toEqual({
      code: 1,
      output: "No such user with that email.",
    });
  });
});

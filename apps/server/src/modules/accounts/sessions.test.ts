import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { SESSION_CACHE_MS } from "./sessions.repository.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function sessionOf(email: string) {
  return server.db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(["sessions.id", "sessions.user_id", "sessions.last_seen_at"])
    .where("users.email", "=", email)
    .executeTakeFirstOrThrow();
}

describe("sessions", () => {
  it("writes last seen at most once a minute per session from requests, never from live pings, and once when the socket closes", async () => {
    const d = new Device(server.url);
    await d.register("Seen", "seen@example.com");
    const { id } = await sessionOf("seen@example.com");
    // Backdated behind the server's back: any UPDATE it ran would overwrite this.
    const backdated = server.clock.now() - 10 * 60_000;
    await server.db.updateTable("sessions").set({ last_seen_at: backdated }).where("id", "=", id).execute();

    server.clock.advance(30_000);
    expect((await d.request("GET", API.me)).status).toBe(200);
    const live = await d.live();
    live.socket.send(JSON.stringify({ type: "ping" }));
    await live.waitFor((r) => r.some((m) => m.type === "pong"));
    expect(Number((await sessionOf("seen@example.com")).last_seen_at)).toBe(backdated);

    // Heartbeats write nothing, however long the socket stays open.
    server.clock.advance(31_000);
    live.socket.send(JSON.stringify({ type: "ping" }));
    await live.waitFor((r) => r.filter((m) => m.type === "pong").length === 2);
    expect(Number((await sessionOf("seen@example.com")).last_seen_at)).toBe(backdated);

    // A request once the minute is over writes it.
    expect((await d.request("GET", API.me)).status).toBe(200);
    expect(Number((await sessionOf("seen@example.com")).last_seen_at)).toBe(server.clock.now());

    // The device going away writes when it went.
    server.clock.advance(5 * 60_000);
    live.close();
    await expect.poll(async () => Number((await sessionOf("seen@example.com")).last_seen_at)).toBe(server.clock.now());
  });

  it("serves a session from memory for a few seconds, and forgets it at once when the bus says it was signed out", async () => {
    const d = new Device(server.url);
    await d.register("Cached", "cached@example.com");
    expect((await d.request("GET", API.me)).status).toBe(200);
    const session = await sessionOf("cached@example.com");
    // Deleted with no notice (as a sweep would): still served until the cached lookup runs out.
    await server.db.deleteFrom("sessions").where("id", "=", session.id).execute();
    expect((await d.request("GET", API.me)).status).toBe(200);
    server.clock.advance(SESSION_CACHE_MS + 1);
    expect((await d.request("GET", API.me)).status).toBe(401);

    const other = new Device(server.url);
    await other.login("cached@example.com");
    expect((await other.request("GET", API.me)).status).toBe(200);
    const second = await sessionOf("cached@example.com");
    await server.db.deleteFrom("sessions").where("id", "=", second.id).execute();
    // A sign-out on another process arrives as this notice (through Redis when the suite runs with it, so not at
    // once; the test clock stands still, so only the notice can end the cached lookup).
    server.bus.publish("session.revoked", { userId: second.user_id, sessionId: second.id });
    await expect.poll(async () => (await other.request("GET", API.me)).status).toBe(401);
  });

  it("looks up the sessions of requests that come together in one go, and answers each its own", async () => {
    const people = Array.from({ length: 8 }, (_, i) => ({
      device: new Device(server.url),
      name: `Together ${i}`,
      email: `together-${i}@example.com`,
    }));
    for (const p of people) await p.device.register(p.name, p.email);
    const disabled = people[3];
    await server.db
      .updateTable("users")
      .set({ disabled_at: server.clock.now() })
      .where("email", "=", disabled?.email ?? "")
      .execute();
    // Every cached look-up over: the next requests go to the database, in the same turn.
    server.clock.advance(SESSION_CACHE_MS + 1);
    const answers = await Promise.all(people.map((p) => p.device.request<{ user: { name: string } }>("GET", API.me)));
    expect(answers.map((a) => (a.status === 200 ? a.body.user.name : a.status))).toEqual(
      people.map((p) => (p === disabled ? 401 : p.name)),
    );
  });
});

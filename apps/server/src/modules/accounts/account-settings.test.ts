/**
 * Settings over real HTTP and WebSocket, on SQLite and (server-pg) PostgreSQL: name, email, password and
 * deleting one's own account. The provider side (a fresh check without a password) is in
 * identities/fresh-check.test.ts.
 */
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { API, DISCUSSIONS_API, LIVE_CLOSE, SETTINGS_API, SETTINGS_TEXT, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person as personOn } from "../../testing/discussion-api.ts";
import { everyRow, tablesNaming } from "../../testing/every-row.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, uploadFile } from "../../testing/tus-client.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const person = (name: string) => personOn(server, name);

/** Another device of the same account, signed in by password, with its live connection open. */
async function otherDevice(email: string, password = "correct horse") {
  const device = new Device(server.url);
  await device.login(email, password);
  const live = await device.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return { device, live };
}

const userEvents = (received: Array<{ type: string; event?: { kind: string } }>) =>
  received.filter((m) => m.type === "event" && m.event?.kind === "user.updated");

describe("name", () => {
  it("changes with the shared schema's rules, and the other devices hear it live", async () => {
    const { device, email } = await person("Naming");
    const other = await otherDevice(email);
    expect((await device.request("PUT", SETTINGS_API.name, { name: "   " })).body).toMatchObject({
      error: { code: "validation", field: "name" },
    });
    expect((await device.request("PUT", SETTINGS_API.name, { name: "x".repeat(101) })).status).toBe(400);
    expect((await new Device(server.url).request("PUT", SETTINGS_API.name, { name: "Nobody" })).status).toBe(401);

    const res = await device.request<{ user: User }>("PUT", SETTINGS_API.name, { name: "  Nora Renamed " });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe("Nora Renamed");
    await other.live.waitFor((r) =>
      userEvents(r).some((m) => (m as unknown as { event: { user: User } }).event.user.name === "Nora Renamed"),
    );
    expect((await other.device.get<{ user: User }>(API.me)).body.user.name).toBe("Nora Renamed");
    other.live.close();
  });
});

describe("email", () => {
  it("needs the right current password, refuses an email another account has, and signs in with the new one", async () => {
    const { device, email } = await person("Mover");
    const { email: taken } = await person("Holder");
    const newEmail = `moved.${email}`;
    const other = await otherDevice(email);

    const missing = await device.request("PUT", SETTINGS_API.email, { email: newEmail });
    expect(missing).toMatchObject({ status: 400, body: { error: { field: "password" } } });
    const wrong = await device.request("PUT", SETTINGS_API.email, { email: newEmail, password: "not it" });
    expect(wrong).toMatchObject({ status: 403, body: { error: { code: "wrong_password", message: SETTINGS_TEXT.wrongPassword } } });
    const invalid = await device.request("PUT", SETTINGS_API.email, { email: "not an email", password: "correct horse" });
    expect(invalid).toMatchObject({ status: 400, body: { error: { field: "email" } } });
    const clash = await device.request("PUT", SETTINGS_API.email, { email: taken.toUpperCase(), password: "correct horse" });
    expect(clash).toMatchObject({
      status: 409,
      body: { error: { code: "email_taken", field: "email", message: "Another account already uses this email. Choose a different one." } },
    });

    const moved = await device.request<{ user: User }>("PUT", SETTINGS_API.email, {
      email: newEmail.toUpperCase(),
      password: "correct horse",
    });
    expect(moved.status).toBe(200);
    expect(moved.body.user.email).toBe(newEmail);
    await other.live.waitFor((r) => userEvents(r).length > 0);
    expect((await new Device(server.url).post(API.login, { email, password: "correct horse" })).status).toBe(401);
    await new Device(server.url).login(newEmail);
    other.live.close();
  });
});

describe("password", () => {
  it("needs the current password; signs the other devices out (live) while this one stays signed in", async () => {
    const { device, email } = await person("Changer");
    const other = await otherDevice(email);
    const body = { current_password: "correct horse", password: "new horse 1", confirm_password: "new horse 1" };

    expect((await device.request("PUT", SETTINGS_API.password, { ...body, current_password: "not it" })).status).toBe(403);
    expect((await device.request("PUT", SETTINGS_API.password, { ...body, current_password: undefined })).status).toBe(400);
    const short = await device.request("PUT", SETTINGS_API.password, { ...body, password: "short", confirm_password: "short" });
    expect(short).toMatchObject({ status: 400, body: { error: { field: "password" } } });
    const mismatch = await device.request("PUT", SETTINGS_API.password, { ...body, confirm_password: "new horse 2" });
    expect(mismatch).toMatchObject({ status: 400, body: { error: { field: "confirm_password" } } });

    const changed = await device.request("PUT", SETTINGS_API.password, body);
    expect(changed).toMatchObject({ status: 200, body: { signed_out: 1 } });
    expect(await other.live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await other.device.get(API.me)).status).toBe(401);
    expect((await device.get(API.me)).status).toBe(200);
    expect((await new Device(server.url).post(API.login, { email, password: "correct horse" })).status).toBe(401);
    await new Device(server.url).login(email, "new horse 1");
  });

  it("keeps the other devices signed in when asked to", async () => {
    const { device, email } = await person("Keeper");
    const other = await otherDevice(email);
    const changed = await device.request("PUT", SETTINGS_API.password, {
      current_password: "correct horse",
      password: "kept horse 1",
      confirm_password: "kept horse 1",
      keep_other_devices: true,
    });
    expect(changed).toMatchObject({ status: 200, body: { signed_out: 0 } });
    expect((await other.device.get(API.me)).status).toBe(200);
    // Its live connection is still open and answering.
    other.live.socket.send(JSON.stringify({ type: "ping" }));
    await other.live.waitFor((r) => r.some((m) => m.type === "pong"));
    other.live.close();
  });
});

describe("deleting one's own account", () => {
  it("needs the password and the email typed exactly; then nothing of the account remains, and its other devices are signed out live", async () => {
    const { device, user, email } = await person("Leaving");
    const { device: friend } = await person("Friend");
    const now = () => server.clock.now();
    expect((await device.post(API.messages, textMessage("private", now()))).status).toBe(201);
    const file = await uploadFile(device, randomBytes(700), metadata("mine.bin", now()).header);
    const unfinished = await create(device, 5000, metadata("half.bin", now()).header);
    const unfinishedId = unfinished.location.split("/").pop() ?? "";
    const started = (
      await device.post<{ discussion: { id: string; public_id: string } }>(DISCUSSIONS_API.list, { title: "Mine", display_name: "Leo" })
    ).body.discussion;
    expect((await friend.post(DISCUSSIONS_API.join(started.public_id), { display_name: "Fay" })).status).toBe(201);
    const friendLive = await friend.live();
    const other = await otherDevice(email);
    expect([...(await everyRow(server)).values()].join("").includes(user.id)).toBe(true);

    const confirm = { email, password: "correct horse" };
    expect((await device.request("DELETE", SETTINGS_API.account, { email })).status).toBe(400);
    expect((await device.request("DELETE", SETTINGS_API.account, { ...confirm, password: "not it" })).status).toBe(403);
    const typo = await device.request("DELETE", SETTINGS_API.account, { ...confirm, email: `x${email}` });
    expect(typo).toMatchObject({ status: 400, body: { error: { field: "email", message: SETTINGS_TEXT.deleteEmailMismatch } } });
    expect((await new Device(server.url).request("DELETE", SETTINGS_API.account, confirm)).status).toBe(401);
    expect((await device.get(API.me)).status).toBe(200);

    const res = await device.request("DELETE", SETTINGS_API.account, { ...confirm, email: ` ${email.toUpperCase()} ` });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("daysync_session=;"))).toBe(true);
    expect(await other.live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await other.device.get(API.me)).status).toBe(401);
    await friendLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.closed" && m.event.id === started.id && m.event.reason === "ended"),
    );
    expect(await tablesNaming(server, [user.id, email])).toEqual([]);
    const files = readdirSync(server.dataDir, { recursive: true }).map(String);
    for (const id of [file, unfinishedId]) expect(files.filter((f) => f.includes(id))).toEqual([]);
    expect((await new Device(server.url).post(API.login, { email, password: "correct horse" })).status).toBe(401);
    friendLive.close();
  });
});

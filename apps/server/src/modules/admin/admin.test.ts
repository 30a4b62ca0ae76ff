import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import {
  ACCOUNT_DISABLED_MESSAGE,
  ADMIN_API,
  type AdminAccount,
  type AdminFigures,
  API,
  type AuditEntry,
  DISCUSSIONS_API,
  FREE_TYPE_ID,
  LIVE_CLOSE,
  PASSWORD_RESET_TTL_MS,
  PREMIUM_TYPE_ID,
  PUSH_API,
  RESET_LINK_INVALID_MESSAGE,
  RESET_PASSWORD_API,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { person as personOn } from "../../testing/discussion-api.ts";
import { everyRow } from "../../testing/every-row.ts";
import { LogCapture } from "../../testing/log-capture.ts";
import { newSubscriptionKeys } from "../../testing/push-service-double.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, uploadFile } from "../../testing/tus-client.ts";

let server: TestServer;
let log: LogCapture;
let admin: Device;
let adminUser: User;

beforeAll(async () => {
  log = new LogCapture();
  server = await startTestServer({ LOG_LEVEL: "warn", LOGIN_RATE_LIMIT_MAX: "1000" }, { logStream: log });
  admin = new Device(server.url);
  adminUser = await admin.register("Ada Admin", "ada.admin@example.com");
});
afterAll(() => server.close());

const person = (name: string) => personOn(server, name);

const accountOf = async (id: string) =>
  (await admin.get<{ accounts: AdminAccount[] }>(ADMIN_API.accounts)).body.accounts.find((a) => a.id === id);
const auditLog = async () => (await admin.get<{ entries: AuditEntry[] }>(ADMIN_API.audit)).body.entries;
const resetTokenOf = (url: string) => url.split("#")[1] ?? "";

describe("the admin role", () => {
  it("makes the first account of a new installation its admin, and no later one", async () => {
    expect(adminUser.role).toBe("admin");
    const { user } = await person("Later");
    expect(user.role).toBe("user");
  });

  it("answers 404 on every admin route to a plain user and to a visitor, whatever the body", async () => {
    const { device: plain, user } = await person("Plain");
    const visitor = new Device(server.url);
    const routes: Array<[string, string, unknown?]> = [
      ["GET", ADMIN_API.accounts],
      ["GET", `${ADMIN_API.accounts}?q=ada`],
      ["GET", ADMIN_API.figures],
      ["GET", ADMIN_API.audit],
      ["PUT", ADMIN_API.premium(user.id), { until: "2099-01-01" }],
      ["PUT", ADMIN_API.premium(adminUser.id), { nonsense: true }],
      ["DELETE", ADMIN_API.premium(user.id)],
      ["PUT", ADMIN_API.disabled(adminUser.id)],
      ["DELETE", ADMIN_API.disabled(user.id)],
      ["DELETE", ADMIN_API.account(adminUser.id)],
      ["POST", ADMIN_API.passwordReset(adminUser.id)],
      ["GET", "/api/admin/unknown"],
    ];
    for (const device of [plain, visitor]) {
      for (const [method, path, body] of routes) {
        const res = await device.request(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(res.body).toMatchObject({ error: { code: "not_found" } });
      }
    }
    // Nothing happened: the admin is still an enabled admin on Free.
    const me = await admin.get<{ user: User }>(API.me);
    expect(me.status).toBe(200);
    expect(me.body.user.subscription_type_id).toBe(FREE_TYPE_ID);
  });

  it("is given and taken by the command line, and the person's open devices hear of it", async () => {
    const { device, email, user } = await person("Promoted");
    expect((await device.get(ADMIN_API.figures)).status).toBe(404);
    const live = await device.live();
    const set = await runAdmin(["role", "set", email.toUpperCase(), "admin"], server.env);
    expect(set).toEqual({ code: 0, output: `${email}: admin (may open /admin)` });
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "user.updated" && m.event.user.role === "admin"));
    expect((await device.get(ADMIN_API.figures)).status).toBe(200);
    expect((await runAdmin(["role", "set", email, "user"], server.env)).code).toBe(0);
    expect((await device.get(ADMIN_API.figures)).status).toBe(404);
    live.close();
    expect(await runAdmin(["role", "set", "nobody@example.com", "admin"], server.env)).toEqual({
      code: 1,
      output: "No such user with that email.",
    });
    expect((await runAdmin(["role", "set", email, "owner"], server.env)).code).toBe(2);
    const entries = (await auditLog()).filter((e) => e.target === email && e.action === "role.set");
    expect(entries.map((e) => [e.actor, e.detail])).toEqual([
      ["command line", "user"],
      ["command line", "admin"],
    ]);
    expect(user.role).toBe("user");
  });
});

describe("accounts on the admin page", () => {
  it("lists accounts with plan, storage, devices and last seen, and searches by name or email", async () => {
    const { user, device } = await person("Searchable");
    await new Device(server.url).login(user.email);
    const data = randomBytes(1500);
    await uploadFile(device, data, metadata("notes.bin", server.clock.now()).header);
    const all = (await admin.get<{ accounts: AdminAccount[] }>(ADMIN_API.accounts)).body.accounts;
    expect(all.length).toBeGreaterThan(2);
    const row = all.find((a) => a.id === user.id);
    expect(row).toMatchObject({
      name: "Searchable",
      email: user.email,
      role: "user",
      disabled_at: null,
      title_subscription: "Free plan",
      storage_used: 1500,
      devices: 2,
      last_seen_at: server.clock.now(),
      created_at: user.timestamps,
    });
    const byName = (await admin.get<{ accounts: AdminAccount[] }>(`${ADMIN_API.accounts}?q=SEARCHAB`)).body.accounts;
    expect(byName.map((a) => a.id)).toEqual([user.id]);
    const byEmail = (await admin.get<{ accounts: AdminAccount[] }>(`${ADMIN_API.accounts}?q=${encodeURIComponent(user.email)}`)).body
      .accounts;
    expect(byEmail.map((a) => a.id)).toEqual([user.id]);
    // A LIKE wildcard is a character like any other.
    expect((await admin.get<{ accounts: AdminAccount[] }>(`${ADMIN_API.accounts}?q=%25`)).body.accounts).toEqual([]);
    // NUL is refused, naming the field (PostgreSQL had answered 500: found by the fuzz, issue 42).
    for (const q of ["%00", "a%00b"]) {
      expect(await admin.get(`${ADMIN_API.accounts}?q=${q}`), q).toMatchObject({ status: 400, body: { error: { field: "q" } } });
    }
  });

  it("grants Premium until a date and ends it, each told to the person's devices live and written to the audit log", async () => {
    const { user, device } = await person("Grantee");
    const live = await device.live();
    const until = new Date(server.clock.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const granted = await admin.request<{ account: AdminAccount }>("PUT", ADMIN_API.premium(user.id), { until });
    expect(granted.status).toBe(200);
    expect(granted.body.account).toMatchObject({
      subscription_type_id: PREMIUM_TYPE_ID,
      date_expiration_subscription: Date.parse(`${until}T23:59:59.999Z`),
    });
    await live.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "user.updated" && m.event.user.subscription_type_id === PREMIUM_TYPE_ID),
    );
    expect((await device.get<{ user: User }>(API.me)).body.user.date_expiration_subscription).toBe(`${until}T23:59:59.999Z`);

    const ended = await admin.request<{ account: AdminAccount }>("DELETE", ADMIN_API.premium(user.id));
    expect(ended.body.account.subscription_type_id).toBe(FREE_TYPE_ID);
    await live.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "user.updated" && m.event.user.subscription_type_id === FREE_TYPE_ID),
    );
    expect((await device.get<{ user: User }>(API.me)).body.user.max_message_duration).toBe(15);
    live.close();

    const entries = (await auditLog()).filter((e) => e.target === user.email);
    expect(entries.map((e) => [e.actor, e.action, e.detail])).toEqual([
      ["ada.admin@example.com", "premium.ended", ""],
      ["ada.admin@example.com", "premium.granted", `until ${until}`],
    ]);
  });

  it("refuses an end date in the past or that is no date, naming the field", async () => {
    const { user } = await person("Dated");
    const past = await admin.request("PUT", ADMIN_API.premium(user.id), { until: "2001-01-01" });
    expect(past).toMatchObject({
      status: 400,
      body: { error: { code: "validation", field: "until", message: "The end date must be in the future." } },
    });
    const bad = await admin.request("PUT", ADMIN_API.premium(user.id), { until: "next week" });
    expect(bad).toMatchObject({ status: 400, body: { error: { field: "until" } } });
    const unknown = await admin.request("PUT", ADMIN_API.premium(crypto.randomUUID()), { until: "2099-01-01" });
    expect(unknown.status).toBe(404);
    expect((await accountOf(user.id))?.subscription_type_id).toBe(FREE_TYPE_ID);
  });

  it("disables an account: every session ends at once, live sockets close, sign-in is refused with a clear message; enabling lets it in again", async () => {
    const { user, device } = await person("Disabled");
    const second = new Device(server.url);
    await second.login(user.email);
    const live = await device.live();
    const res = await admin.request<{ account: AdminAccount }>("PUT", ADMIN_API.disabled(user.id));
    expect(res.status).toBe(200);
    expect(res.body.account.disabled_at).toBe(server.clock.now());
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await device.get(API.me)).status).toBe(401);
    expect((await second.get(API.me)).status).toBe(401);
    expect((await accountOf(user.id))?.devices).toBe(0);
    const refused = await new Device(server.url).post(API.login, { email: user.email, password: "correct horse" });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "account_disabled", message: ACCOUNT_DISABLED_MESSAGE } } });
    // A wrong password still says only that: the account's state is told to its owner alone.
    const wrong = await new Device(server.url).post(API.login, { email: user.email, password: "wrong horse" });
    expect(wrong.status).toBe(401);

    const enabled = await admin.request<{ account: AdminAccount }>("DELETE", ADMIN_API.disabled(user.id));
    expect(enabled.body.account.disabled_at).toBeNull();
    expect((await new Device(server.url).login(user.email)).id).toBe(user.id);
    const entries = (await auditLog()).filter((e) => e.target === user.email);
    expect(entries.map((e) => [e.action, e.detail])).toEqual([
      ["account.enabled", ""],
      ["account.disabled", "2 devices signed out"],
    ]);
  });

  it("does not let an admin disable or delete their own account from the page", async () => {
    expect((await admin.request("PUT", ADMIN_API.disabled(adminUser.id))).status).toBe(409);
    expect((await admin.request("DELETE", ADMIN_API.account(adminUser.id))).status).toBe(409);
    expect((await admin.get(API.me)).status).toBe(200);
  });

  it("shows the server's figures", async () => {
    const { device } = await person("Busy");
    const live = await device.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const before = (await admin.get<AdminFigures>(ADMIN_API.figures)).body;
    for (const content of ["one", "two"])
      expect((await device.post(API.messages, textMessage(content, server.clock.now()))).status).toBe(201);
    await uploadFile(device, randomBytes(300), metadata("pic.bin", server.clock.now()).header);
    const res = await admin.get<AdminFigures>(ADMIN_API.figures);
    expect(res.status).toBe(200);
    const after = res.body;
    expect(after.messages_last_hour - before.messages_last_hour).toBe(3);
    expect(after.messages_last_day - before.messages_last_day).toBe(3);
    expect(after.files_last_hour - before.files_last_hour).toBe(1);
    expect(after.storage_used - before.storage_used).toBe(300);
    expect(after.accounts).toBe(before.accounts);
    expect(after.devices_online).toBeGreaterThanOrEqual(1);
    expect(after.volume_size).toBeGreaterThan(0);
    expect(after.volume_free).toBeGreaterThan(0);
    expect(after.hours).toHaveLength(24);
    expect(after.hours.at(-1)?.messages).toBe(after.messages_last_hour);
    live.close();
  });
});

describe("password reset links", () => {
  it("sets a new password once, signs out every session, and refuses the link after use or after 30 minutes", async () => {
    const { user, device } = await person("Forgetful");
    const live = await device.live();
    const link = await admin.post<{ url: string; expires_at: number }>(ADMIN_API.passwordReset(user.id));
    expect(link.status).toBe(200);
    expect(link.body.url).toMatch(new RegExp(`^${server.url}/reset-password#[A-Za-z0-9_-]{40,}$`));
    expect(link.body.expires_at).toBe(server.clock.now() + PASSWORD_RESET_TTL_MS);
    const token = resetTokenOf(link.body.url);
    const visitor = new Device(server.url);
    const short = await visitor.post(RESET_PASSWORD_API, { token, password: "short", confirm_password: "short" });
    expect(short).toMatchObject({ status: 400, body: { error: { field: "password" } } });
    const mismatch = await visitor.post(RESET_PASSWORD_API, { token, password: "new horse 1", confirm_password: "new horse 2" });
    expect(mismatch).toMatchObject({ status: 400, body: { error: { field: "confirm_password" } } });

    // The device that used the link is signed in; every other one is signed out.
    const used = await visitor.post<{ user: User }>(RESET_PASSWORD_API, {
      token,
      password: "brand new horse",
      confirm_password: "brand new horse",
    });
    expect(used.status).toBe(200);
    expect(used.body.user.id).toBe(user.id);
    expect((await visitor.get(API.me)).status).toBe(200);
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await device.get(API.me)).status).toBe(401);
    expect((await new Device(server.url).post(API.login, { email: user.email, password: "correct horse" })).status).toBe(401);
    await new Device(server.url).login(user.email, "brand new horse");
    const again = await visitor.post(RESET_PASSWORD_API, { token, password: "third horse", confirm_password: "third horse" });
    expect(again).toMatchObject({ status: 400, body: { error: { code: "reset_link_invalid", message: RESET_LINK_INVALID_MESSAGE } } });

    const late = await admin.post<{ url: string }>(ADMIN_API.passwordReset(user.id));
    server.clock.advance(PASSWORD_RESET_TTL_MS);
    const expired = await visitor.post(RESET_PASSWORD_API, {
      token: resetTokenOf(late.body.url),
      password: "third horse",
      confirm_password: "third horse",
    });
    expect(expired.status).toBe(400);
    await new Device(server.url).login(user.email, "brand new horse");
    expect((await auditLog()).find((e) => e.target === user.email)?.action).toBe("password_reset.link_created");
  });

  it("is printed by the command line, on PUBLIC_URL when it is set and on localhost otherwise", async () => {
    const { user } = await person("Terminal");
    // The command line runs on the system clock; the server checks the link on its own.
    server.clock.current = Date.now();
    const plain = await runAdmin(["password-reset", user.email], { ...server.env, PORT: "4321" });
    expect(plain.code).toBe(0);
    const url = plain.output.split("\n")[1] ?? "";
    expect(url).toMatch(/^http:\/\/localhost:4321\/reset-password#[A-Za-z0-9_-]{40,}$/);
    const publicUrl = await runAdmin(["password-reset", user.email], { ...server.env, PUBLIC_URL: "https://sync.example.org/" });
    expect(publicUrl.output.split("\n")[1]).toMatch(/^https:\/\/sync\.example\.org\/reset-password#/);
    const res = await new Device(server.url).post(RESET_PASSWORD_API, {
      token: resetTokenOf(url),
      password: "typed horse",
      confirm_password: "typed horse",
    });
    expect(res.status).toBe(200);
    await new Device(server.url).login(user.email, "typed horse");
  });
});

describe("account deletion", () => {
  it("leaves nothing of the account in any table or in the files folder; its discussions end, its devices are signed out live", async () => {
    const { user, device, email } = await person("Leaving");
    const { user: other, device: otherDevice } = await person("Staying");
    const now = () => server.clock.now();
    const second = new Device(server.url);
    await second.login(email);
    // Their days, a file, an unfinished upload, a push subscription, a reset link.
    expect((await device.post(API.messages, textMessage("private", now()))).status).toBe(201);
    const ownFile = await uploadFile(device, randomBytes(700), metadata("mine.bin", now()).header);
    const unfinished = await create(device, 5000, metadata("half.bin", now()).header);
    expect(unfinished.res.status).toBe(201);
    const unfinishedId = unfinished.location.split("/").pop() ?? "";
    expect(
      (await second.post(PUSH_API.subscriptions, { endpoint: "http://127.0.0.1:9/push/x", keys: newSubscriptionKeys().json })).status,
    ).toBe(201);
    await admin.post(ADMIN_API.passwordReset(user.id));
    // A discussion they created, which the other joined, and one the other created, which they joined and wrote in.
    const theirs = (
      await device.post<{ discussion: { id: string; public_id: string } }>(DISCUSSIONS_API.list, { title: "Mine", display_name: "Leo" })
    ).body.discussion;
    expect((await otherDevice.post(DISCUSSIONS_API.join(theirs.public_id), { display_name: "Sam" })).status).toBe(201);
    const others = (
      await otherDevice.post<{ discussion: { id: string; public_id: string } }>(DISCUSSIONS_API.list, {
        title: "Yours",
        display_name: "Sam",
      })
    ).body.discussion;
    expect((await device.post(DISCUSSIONS_API.join(others.public_id), { display_name: "Leo" })).status).toBe(201);
    expect((await device.post(DISCUSSIONS_API.messages(others.id), textMessage("hello from Leo", now()))).status).toBe(201);
    const sharedFile = await uploadFile(
      device,
      randomBytes(400),
      metadata("shared.bin", now(), crypto.randomUUID(), { discussion_id: others.id }).header,
    );
    expect((await otherDevice.post(DISCUSSIONS_API.messages(others.id), textMessage("hello from Sam", now()))).status).toBe(201);
    await admin.request("PUT", ADMIN_API.premium(user.id), { until: "2099-01-01" });
    const leavingLive = await device.live();
    const otherLive = await otherDevice.live();
    await otherLive.waitFor((r) => r.some((m) => m.type === "ready"));

    const before = await everyRow(server);
    expect([...before.values()].join("").includes(user.id)).toBe(true);
    const res = await admin.request("DELETE", ADMIN_API.account(user.id));
    expect(res).toMatchObject({ status: 200, body: { deleted: true } });

    expect(await leavingLive.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect((await second.get(API.me)).status).toBe(401);
    await otherLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.closed" && m.event.id === theirs.id && m.event.reason === "ended"),
    );
    await otherLive.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "discussion.messages.deleted"));
    // The other's discussion goes on, with their own message and without the deleted member.
    const left = await otherDevice.get<{ messages: Array<{ content: string }> }>(DISCUSSIONS_API.messages(others.id));
    expect(left.body.messages.map((m) => m.content)).toEqual(["hello from Sam"]);
    const details = await otherDevice.get<{ members: Array<{ display_name: string }> }>(DISCUSSIONS_API.one(others.id));
    expect(details.body.members.map((m) => m.display_name)).toEqual(["Sam"]);

    for (const [table, rows] of await everyRow(server)) {
      expect([table, rows.includes(user.id)]).toEqual([table, false]);
      expect([table, rows.toLowerCase().includes(email)]).toEqual([table, false]);
    }
    const files = readdirSync(server.dataDir, { recursive: true }).map(String);
    for (const id of [ownFile, sharedFile, unfinishedId]) expect(files.filter((f) => f.includes(id))).toEqual([]);
    expect((await new Device(server.url).post(API.login, { email, password: "correct horse" })).status).toBe(401);
    expect((await auditLog()).find((e) => e.action === "account.deleted")).toMatchObject({
      actor: "ada.admin@example.com",
      target: "a deleted account",
    });
    expect((await accountOf(other.id))?.email).toBe(other.email);
    otherLive.close();
  });
});

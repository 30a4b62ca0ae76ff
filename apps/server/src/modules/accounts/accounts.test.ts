import { API, FREE_PLAN, type User, VALIDATION } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "5" });
});
afterAll(() => server.close());

const valid = { name: "Ada Lovelace", email: "ada@example.com", password: "analytical", confirm_password: "analytical" };

describe("registration", () => {
  it("creates the user with the Free subscription and signs the device in", async () => {
    const device = new Device(server.url);
    const res = await device.post<{ user: User }>(API.register, valid);
    expect(res.status).toBe(201);
    expect(device.cookie).toMatch(/^daysync_session=/);
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const { user } = res.body;
    expect(user).toMatchObject({
      name: "Ada Lovelace",
      email: "ada@example.com",
      title_subscription: FREE_PLAN.title,
      subscription_type_id: 1,
      max_message_duration: 15,
      price_per_month: 0,
      subscription_duration: 60,
      description_subscription: "Your messages remain 15 min before disappear",
    });
    const days = (Date.parse(user.date_expiration_subscription) - Date.parse(user.date_subscription)) / 86_400_000;
    expect(days).toBe(60);
    expect((await device.get<{ user: User }>(API.me)).body.user.id).toBe(user.id);
  });

  it("refuses a second account with the same email, whatever its case", async () => {
    const res = await new Device(server.url).post(API.register, { ...valid, email: "ADA@example.com" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: "email_taken", message: "An account with this email already exists." } });
  });

  it.each([
    [{ ...valid, name: "" }, "name", VALIDATION.nameRequired],
    [{ ...valid, email: "" }, "email", VALIDATION.emailRequired],
    [{ ...valid, email: "not-an-email" }, "email", VALIDATION.emailInvalid],
    [{ ...valid, password: "", confirm_password: "" }, "password", VALIDATION.passwordRequired],
    [{ ...valid, confirm_password: "" }, "confirm_password", VALIDATION.confirmRequired],
    [{ ...valid, confirm_password: "different1" }, "confirm_password", VALIDATION.passwordsMatch],
    [{ ...valid, email: "short@example.com", password: "short", confirm_password: "short" }, "password", VALIDATION.passwordTooShort],
  ])("answers 400 naming the field for %o", async (body, field, message) => {
    const res = await new Device(server.url).post(API.register, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "validation", message, field } });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await fetch(server.url + API.register, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("validation");
  });
});

describe("sign-in and sign-out", () => {
  it("signs in with the right password, and out again", async () => {
    const device = new Device(server.url);
    const user = await device.login("ada@example.com", "analytical");
    expect(user.email).toBe("ada@example.com");
    expect((await device.get(API.me)).status).toBe(200);
    const cookieBefore = device.cookie;
    expect((await device.post(API.logout)).status).toBe(204);
    expect(device.cookie).toBe("");
    // The old cookie no longer works either: the session is gone on the server.
    const replay = new Device(server.url);
    replay.cookie = cookieBefore;
    expect((await replay.get(API.me)).status).toBe(401);
  });

  it("tells a visitor and a signed-in device apart with a 200 from /api/session", async () => {
    const visitor = new Device(server.url);
    expect(await visitor.get(API.session)).toMatchObject({ status: 200, body: { user: null } });
    const device = new Device(server.url);
    await device.login("ada@example.com", "analytical");
    const res = await device.get<{ user: User }>(API.session);
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe("ada@example.com");
  });

  it("gives the same answer for a wrong password and an unknown email", async () => {
    const wrong = await new Device(server.url).post(API.login, { email: "ada@example.com", password: "wrong-password" });
    const unknown = await new Device(server.url).post(API.login, { email: "nobody@example.com", password: "wrong-password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ error: { code: "invalid_credentials", message: "Invalid email or password." } });
  });

  it("refuses a cross-site form post", async () => {
    const res = await new Device(server.url).request(
      "POST",
      API.login,
      { email: "ada@example.com", password: "analytical" },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: "forbidden" } });
  });

  it("answers an unknown API path with a JSON 404", async () => {
    const res = await new Device(server.url).get("/api/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("rate limit", () => {
  it("limits account creation per address with a 429 and a readable message", async () => {
    const limited = await startTestServer({ REGISTER_RATE_LIMIT_MAX: "2" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await new Device(limited.url).post(API.register, {
          name: `Signup ${i}`,
          email: `signup${i}@example.com`,
          password: "correct horse",
          confirm_password: "correct horse",
        });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body).toMatchObject({ error: { code: "rate_limited" } });
          expect((res.body as { error: { message: string } }).error.message).toMatch(/Try again in \d+ seconds\./);
        }
      }
      expect(statuses).toEqual([201, 201, 429]);
      // The refused sign-up created nothing.
      const users = await limited.db.selectFrom("users").select("email").execute();
      expect(users.map((u) => u.email).sort()).toEqual(["signup0@example.com", "signup1@example.com"]);
    } finally {
      await limited.close();
    }
  });

  it("limits sign-in attempts with a 429 and a readable message", async () => {
    // A server of its own: the limit counts per address, and the other tests sign in too.
    const limited = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "3" });
    try {
      const device = new Device(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await device.post(API.login, { email: "x@example.com", password: "whatever1" })).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const res = await device.post(API.login, { email: "x@example.com", password: "whatever1" });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ error: { code: "rate_limited" } });
      expect((res.body as { error: { message: string } }).error.message).toMatch(/Too many attempts\. Try again in \d+ seconds\./);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

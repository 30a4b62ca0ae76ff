/**
 * Who may register (issue 43): REGISTRATION unset (open until the first account, then by invite), invite links
 * that work once and expire, `closed`, and sign-up through a real OpenID Connect provider obeying the same rule;
 * over real HTTP, on SQLite and (server-pg) PostgreSQL.
 */
import {
  ADMIN_API,
  API,
  type AuditEntry,
  INVITE_FRAGMENT,
  INVITE_TTL_MS,
  REGISTRATION_TEXT,
  SITE_API,
  type SiteConfig,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { freePort } from "../../testing/free-port.ts";
import { startTestProvider, type TestProvider } from "../../testing/oidc-test-provider.ts";
import { RedirectBrowser } from "../../testing/redirect-browser.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const SESSION = "daysync_session";
let provider: TestProvider;
let counter = 0;
/** The servers' ports, picked first: the provider must know each callback when it starts. */
const ports: number[] = [];

/** A server with the test provider "test" (sign-up allowed by the provider itself), REGISTRATION as given. */
async function serverWith(registration: string): Promise<TestServer> {
  const port = ports.pop();
  if (port === undefined) throw new Error("no port left for another server");
  return startTestServer(
    {
      REGISTRATION: registration,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_PROVIDERS: "test",
      OIDC_TEST_ISSUER: provider.issuer,
      OIDC_TEST_CLIENT_ID: provider.clientId,
      OIDC_TEST_CLIENT_SECRET: provider.clientSecret,
      OIDC_TEST_LABEL: "Test ID",
      OIDC_TEST_ALLOW_SIGNUP: "true",
    },
    { port },
  );
}

/** A provider account no other test uses. */
function providerAccount(tag: string) {
  counter += 1;
  const login = `${tag}-${counter}`;
  provider.accounts.set(login, { email: `${login}@example.com`, email_verified: true, name: `Person ${login}` });
  return login;
}

/**
 * Signs in at the provider as `login`, through this server's button (the register page's, with an invite); where the
 * app sent the browser, and its device.
 */
async function providerSignIn(server: TestServer, login: string, invite?: string) {
  const browser = new RedirectBrowser();
  const host = new URL(server.url).host;
  const atAppPage = (next: URL) => next.host === host && !next.pathname.startsWith("/api/");
  const query = new URLSearchParams({ return: "/dashboard", ...(invite === undefined ? {} : { invite }) });
  const page = await browser.go(`${server.url}/api/auth/oidc/test/start?${query}`, { stopAt: atAppPage });
  expect(page.url.origin).toBe(provider.issuer);
  const done = await browser.submitForm(page, { login, password: "anything" }, { stopAt: atAppPage });
  const device = new Device(server.url);
  const token = browser.cookie(host, SESSION);
  device.cookie = token ? `${SESSION}=${token}` : "";
  return { landed: done.location, device, browser };
}

const siteOf = async (server: TestServer) => (await new Device(server.url).get<SiteConfig>(SITE_API.config)).body;
const tokenOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get(INVITE_FRAGMENT) ?? "";
const register = (server: TestServer, name: string, invite?: string) =>
  new Device(server.url).post(API.register, {
    name,
    email: `${name.toLowerCase().replaceAll(" ", ".")}.${++counter}@example.com`,
    password: "correct horse",
    confirm_password: "correct horse",
    ...(invite === undefined ? {} : { invite }),
  });

beforeAll(async () => {
  for (let i = 0; i < 3; i++) ports.push(await freePort());
  provider = await startTestProvider({ redirectUris: ports.map((port) => `http://127.0.0.1:${port}/api/auth/oidc/test/callback`) });
});
afterAll(() => provider?.stop());

describe("REGISTRATION unset: open until the first account, then by invite", () => {
  let server: TestServer;
  let admin: Device;
  let adminLogin: string;
  beforeAll(async () => {
    server = await serverWith("");
  });
  afterAll(() => server?.close());

  it("is open on a new installation, and by invite once the first account exists (made here through a provider)", async () => {
    expect(await siteOf(server)).toMatchObject({ registration: "open" });
    adminLogin = providerAccount("owner");
    const first = await providerSignIn(server, adminLogin);
    expect(first.landed?.pathname).toBe("/dashboard");
    admin = first.device;
    expect((await admin.get<{ user: { role: string } }>(API.me)).body.user.role).toBe("admin");
    expect(await siteOf(server)).toMatchObject({ registration: "invite" });
  });

  it("refuses a stranger's registration without an invite with a 403 that says what to do, and makes no account", async () => {
    const res = await register(server, "Stranger");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: "invite_required", message: REGISTRATION_TEXT.inviteRequired } });
    const madeUp = await register(server, "Guesser", "a".repeat(43));
    expect(madeUp.status).toBe(403);
    expect(madeUp.body).toMatchObject({ error: { code: "invite_invalid" } });
    const junk = await register(server, "Junk", "not a token!");
    expect(junk.status).toBe(400);
  });

  it("refuses a new person through the provider with a page that says why, and still signs in the existing account", async () => {
    const stranger = await providerSignIn(server, providerAccount("stranger"));
    expect(stranger.landed?.pathname).toBe("/login");
    expect(stranger.landed?.searchParams.get("error")).toBe("registration_closed");
    expect((await stranger.device.get(API.me)).status).toBe(401);
    const again = await providerSignIn(server, adminLogin);
    expect(again.landed?.pathname).toBe("/dashboard");
    expect((await again.device.get(API.me)).status).toBe(200);
  });

  it("lets an invite link register once: a second use is refused", async () => {
    const made = await admin.post<{ url: string; expires_at: number }>(ADMIN_API.invites);
    expect(made.status).toBe(201);
    expect(made.body.url.startsWith(`${server.url}/register#${INVITE_FRAGMENT}=`)).toBe(true);
    expect(made.body.expires_at).toBe(server.clock.now() + INVITE_TTL_MS);
    const invite = tokenOf(made.body.url);
    const used = await register(server, "Invited", invite);
    expect(used.status).toBe(201);
    const again = await register(server, "Second", invite);
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ error: { code: "invite_invalid", message: REGISTRATION_TEXT.inviteInvalid } });
    // The admin audit log keeps who made it.
    const entries = (await admin.get<{ entries: AuditEntry[] }>(ADMIN_API.audit)).body.entries;
    expect(entries.some((e) => e.action === "invite.created" && e.actor === `${adminLogin}@example.com`)).toBe(true);
  });

  it("lets an invite link make one account through the provider; that invite again, or a made-up one, makes none", async () => {
    const invite = tokenOf((await admin.post<{ url: string }>(ADMIN_API.invites)).body.url);
    const invited = await providerSignIn(server, providerAccount("invited"), invite);
    expect(invited.landed?.pathname).toBe("/dashboard");
    expect((await invited.device.get(API.me)).status).toBe(200);
    // The stranger who got hold of the used link, and one who makes up a token.
    for (const token of [invite, "b".repeat(43)]) {
      const stranger = await providerSignIn(server, providerAccount("stranger"), token);
      expect(stranger.landed?.pathname).toBe("/login");
      expect(stranger.landed?.searchParams.get("error")).toBe("invite_invalid");
      expect((await stranger.device.get(API.me)).status).toBe(401);
    }
    expect((await register(server, "After", invite)).status).toBe(403);
    // Junk is refused before the provider is asked.
    const junk = await new RedirectBrowser().go(`${server.url}/api/auth/oidc/test/start?invite=not+a+token%21`, {
      stopAt: (next) => next.pathname === "/login",
    });
    expect(junk.location?.searchParams.get("error")).toBe("invite_invalid");
  });

  it("keeps an invite whose registration failed (email taken) for the next try", async () => {
    const invite = tokenOf((await admin.post<{ url: string }>(ADMIN_API.invites)).body.url);
    const taken = await new Device(server.url).post(API.register, {
      name: "Taken",
      email: `${adminLogin}@example.com`,
      password: "correct horse",
      confirm_password: "correct horse",
      invite,
    });
    expect(taken.status).toBe(409);
    expect((await register(server, "Retry", invite)).status).toBe(201);
  });

  it("answers 404 to a plain user and to a visitor asking for an invite, as every admin route does", async () => {
    const invited = new Device(server.url);
    const invite = tokenOf((await admin.post<{ url: string }>(ADMIN_API.invites)).body.url);
    const res = await invited.post(API.register, {
      name: "Plain",
      email: `plain.${++counter}@example.com`,
      password: "correct horse",
      confirm_password: "correct horse",
      invite,
    });
    expect(res.status).toBe(201);
    for (const device of [invited, new Device(server.url)]) {
      const asked = await device.post(ADMIN_API.invites);
      expect(asked.status).toBe(404);
      expect(asked.body).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("prints an invite link with `npm run admin -- invite`, on PUBLIC_URL, that works once", async () => {
    const { code, output } = await runAdmin(["invite"], server.env);
    expect(code).toBe(0);
    expect(output).toContain("valid 7 days");
    const url = output.split("\n").find((line) => line.startsWith("http")) ?? "";
    expect(url.startsWith(`${server.env.PUBLIC_URL}/register#${INVITE_FRAGMENT}=`)).toBe(true);
    expect((await register(server, "Cli", tokenOf(url))).status).toBe(201);
    expect((await register(server, "Cli Again", tokenOf(url))).status).toBe(403);
  });

  // Last: it moves this server's clock a week ahead (the command line's invites use the real clock).
  it("lets an invite expire after seven days", async () => {
    const invite = tokenOf((await admin.post<{ url: string }>(ADMIN_API.invites)).body.url);
    server.clock.advance(INVITE_TTL_MS);
    const late = await register(server, "Late", invite);
    expect(late.status).toBe(403);
    expect(late.body).toMatchObject({ error: { code: "invite_invalid" } });
  });
});

describe("REGISTRATION=closed: no new accounts at all", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith("closed");
  });
  afterAll(() => server?.close());

  it("says so, and refuses registration even with an invite, with a 403 JSON", async () => {
    expect(await siteOf(server)).toMatchObject({ registration: "closed" });
    const plain = await register(server, "Nobody");
    expect(plain.status).toBe(403);
    expect(plain.body).toEqual({ error: { code: "registration_closed", message: REGISTRATION_TEXT.closed } });
    const { output } = await runAdmin(["invite"], server.env);
    const url = output.split("\n").find((line) => line.startsWith("http")) ?? "";
    const invited = await register(server, "Invited", tokenOf(url));
    expect(invited.status).toBe(403);
    expect(invited.body).toMatchObject({ error: { code: "registration_closed" } });
  });

  it("refuses a new person through the provider, with an invite too", async () => {
    const { output } = await runAdmin(["invite"], server.env);
    const invite = tokenOf(output.split("\n").find((line) => line.startsWith("http")) ?? "");
    for (const token of [undefined, invite]) {
      const { landed, device } = await providerSignIn(server, providerAccount("closed"), token);
      expect(landed?.pathname).toBe("/login");
      expect(landed?.searchParams.get("error")).toBe("registration_closed");
      expect((await device.get(API.me)).status).toBe(401);
    }
  });
});

describe("REGISTRATION=open", () => {
  it("lets anyone register, after the first account too", async () => {
    const server = await serverWith("open");
    try {
      expect((await register(server, "One")).status).toBe(201);
      expect((await register(server, "Two")).status).toBe(201);
      expect(await siteOf(server)).toMatchObject({ registration: "open" });
    } finally {
      await server.close();
    }
  });
});

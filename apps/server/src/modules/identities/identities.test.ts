/**
 * Sign-in through a real OpenID Connect provider (oidc-provider on a loopback port, its own login page posted
 * like a browser would) and a stand-in for GitHub, over real HTTP, on SQLite and (server-pg) PostgreSQL.
 */
import { API, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../testing/free-port.ts";
import { type FakeGithub, startFakeGithub } from "../../testing/github-fake.ts";
import { LOG_LEVEL, LogCapture } from "../../testing/log-capture.ts";
import { startTestProvider, type TestProvider } from "../../testing/oidc-test-provider.ts";
import { RedirectBrowser, type Step } from "../../testing/redirect-browser.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { safeReturnPath } from "./identities.service.ts";

const SESSION = "daysync_session";
const FLOW = "daysync_auth_flow";
let server: TestServer;
let provider: TestProvider;
let github: FakeGithub;
const log = new LogCapture();
let host: string;
let counter = 0;

/** A provider account that no other test uses. */
function account(tag: string, claims: { email?: string; email_verified?: boolean; name?: string } = {}) {
  counter += 1;
  const login = `${tag}-${counter}`;
  const email = claims.email ?? `${login}@example.com`;
  provider.accounts.set(login, { email, email_verified: claims.email_verified ?? true, name: claims.name ?? `Person ${login}` });
  return { login, email };
}

/** Stops before following a redirect that leaves the API for a page of the app. */
const atAppPage = (next: URL) => next.host === host && !next.pathname.startsWith("/api/");
const atCallback = (next: URL) => next.host === host && next.pathname.endsWith("/callback");

/** Starts at the button's address and stops at the provider's login page. */
async function openProviderLogin(browser: RedirectBrowser, providerId: string, returnTo = "/dashboard"): Promise<Step> {
  const page = await browser.go(`${server.url}/api/auth/oidc/${providerId}/start?return=${encodeURIComponent(returnTo)}`, {
    stopAt: atAppPage,
  });
  expect(page.location, "the start went back to the app instead of the provider").toBeUndefined();
  expect(page.url.origin).toBe(provider.issuer);
  return page;
}

async function signIn(providerId: string, login: string, options: { returnTo?: string; browser?: RedirectBrowser } = {}) {
  const browser = options.browser ?? new RedirectBrowser();
  const page = await openProviderLogin(browser, providerId, options.returnTo);
  const done = await browser.submitForm(page, { login, password: "whatever the provider asks" }, { stopAt: atAppPage });
  return { browser, landed: done.location };
}

function deviceOf(browser: RedirectBrowser): Device {
  const device = new Device(server.url);
  const token = browser.cookie(host, SESSION);
  device.cookie = token ? `${SESSION}=${token}` : "";
  return device;
}

const errorOf = (landed: URL | undefined) =>
  landed?.pathname === "/login" ? landed.searchParams.get("error") : `not /login: ${landed?.href}`;

beforeAll(async () => {
  const port = await freePort();
  const ids = ["open", "closed", "domains", "wrongsecret"];
  provider = await startTestProvider({ redirectUris: ids.map((id) => `http://127.0.0.1:${port}/api/auth/oidc/${id}/callback`) });
  github = await startFakeGithub();
  const oidc = (id: string, settings: Record<string, string>) =>
    Object.fromEntries(
      Object.entries({ ISSUER: provider.issuer, CLIENT_ID: provider.clientId, CLIENT_SECRET: provider.clientSecret, ...settings }).map(
        ([k, v]) => [`OIDC_${id}_${k}`, v],
      ),
    );
  const downPort = await freePort();
  server = await startTestServer(
    {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
      OIDC_PROVIDERS: "open,closed,domains,wrongsecret,down",
      ...oidc("OPEN", { LABEL: "Test ID", ALLOW_SIGNUP: "true" }),
      ...oidc("CLOSED", { LABEL: "Closed ID" }),
      ...oidc("DOMAINS", { ALLOW_SIGNUP: "true", ALLOWED_DOMAINS: "example.org" }),
      ...oidc("WRONGSECRET", { CLIENT_SECRET: "not-the-secret", ALLOW_SIGNUP: "true" }),
      ...oidc("DOWN", { ISSUER: `http://127.0.0.1:${downPort}` }),
      GITHUB_CLIENT_ID: github.clientId,
      GITHUB_CLIENT_SECRET: github.clientSecret,
      GITHUB_ALLOW_SIGNUP: "true",
      GITHUB_BASE_URL: github.url,
      GITHUB_API_URL: github.url,
    },
    { port, logStream: log },
  );
  host = new URL(server.url).host;
});

afterAll(async () => {
  await server?.close();
  await provider?.stop();
  await github?.close();
});

describe("sign-in through an OpenID Connect provider", () => {
  it("lists the configured providers for the buttons, with their labels and icons", async () => {
    const res = await new Device(server.url).get<{ providers: unknown[] }>("/api/auth/providers");
    expect(res.body.providers).toEqual([
      { id: "open", label: "Test ID", kind: "oidc", icon: "key" },
      { id: "closed", label: "Closed ID", kind: "oidc", icon: "key" },
      { id: "domains", label: "domains", kind: "oidc", icon: "key" },
      { id: "wrongsecret", label: "wrongsecret", kind: "oidc", icon: "key" },
      { id: "down", label: "down", kind: "oidc", icon: "key" },
      { id: "github", label: "GitHub", kind: "github", icon: "github" },
    ]);
  });

  it("makes an account at the first sign-in and signs the same account in when the person returns", async () => {
    const { login, email } = account("first", { name: "Ada Provider" });
    const first = await signIn("open", login, { returnTo: "/pair/ABCD?x=1#h" });
    expect(first.landed?.pathname + (first.landed?.search ?? "") + (first.landed?.hash ?? "")).toBe("/pair/ABCD?x=1#h");
    expect(first.browser.cookie(host, "daysync_signed_in")).toBe("1");
    const me = await deviceOf(first.browser).get<{ user: User }>(API.me);
    expect(me.body.user).toMatchObject({ name: "Ada Provider", email, title_subscription: "Free plan" });

    const again = await signIn("open", login);
    expect(again.landed?.pathname).toBe("/dashboard");
    const meAgain = await deviceOf(again.browser).get<{ user: User }>(API.me);
    expect(meAgain.body.user.id).toBe(me.body.user.id);
    expect(deviceOf(again.browser).cookie).not.toBe(deviceOf(first.browser).cookie);

    // The account has no password: every password fails exactly as a wrong one does.
    const withPassword = await new Device(server.url).post(API.login, { email, password: "!none" });
    expect(withPassword.status).toBe(401);
    expect(withPassword.body).toMatchObject({ error: { code: "invalid_credentials" } });
  });

  it("makes no account where the provider does not allow sign-up", async () => {
    const { login, email } = account("closed");
    const { landed, browser } = await signIn("closed", login);
    expect(errorOf(landed)).toBe("signup_closed");
    expect(landed?.searchParams.get("provider")).toBe("closed");
    expect(browser.cookie(host, SESSION)).toBeUndefined();
    expect(await server.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst()).toBeUndefined();
  });

  it("makes no account when the provider has not verified the email", async () => {
    const { login } = account("unverified", { email_verified: false });
    expect(errorOf((await signIn("open", login)).landed)).toBe("email_unverified");
  });

  it("makes no account for an email domain the provider is not allowed", async () => {
    const { login } = account("domain", { email: `domain-${counter}@example.com` });
    expect(errorOf((await signIn("domains", login)).landed)).toBe("domain_not_allowed");
    const allowed = account("domain", { email: `domain-${counter + 1}@example.org` });
    expect((await signIn("domains", allowed.login)).landed?.pathname).toBe("/dashboard");
  });

  it("refuses a callback whose state is not the flow's", async () => {
    const { login } = account("state");
    const browser = new RedirectBrowser();
    const page = await openProviderLogin(browser, "open");
    const atCb = await browser.submitForm(page, { login, password: "x" }, { stopAt: atCallback });
    const tampered = new URL(atCb.location ?? "");
    tampered.searchParams.set("state", "forged");
    const done = await browser.go(tampered, { stopAt: atAppPage });
    expect(errorOf(done.location)).toBe("flow_mismatch");
    expect(browser.cookie(host, SESSION)).toBeUndefined();
  });

  it("refuses a callback whose iss is not the provider's", async () => {
    const { login } = account("iss");
    const browser = new RedirectBrowser();
    const page = await openProviderLogin(browser, "open");
    const atCb = await browser.submitForm(page, { login, password: "x" }, { stopAt: atCallback });
    const tampered = new URL(atCb.location ?? "");
    expect(tampered.searchParams.get("iss")).toBe(provider.issuer);
    tampered.searchParams.set("iss", "http://127.0.0.1:1/");
    const done = await browser.go(tampered, { stopAt: atAppPage });
    expect(errorOf(done.location)).toBe("provider_refused");
    expect(browser.cookie(host, SESSION)).toBeUndefined();
  });

  it("completes a callback once: replayed, even with the flow's cookie put back, it signs nobody in", async () => {
    const { login } = account("replay");
    const browser = new RedirectBrowser();
    const page = await openProviderLogin(browser, "open");
    const flowId = browser.cookie(host, FLOW) ?? "";
    const atCb = await browser.submitForm(page, { login, password: "x" }, { stopAt: atCallback });
    const callback = atCb.location ?? new URL(server.url);
    expect((await browser.go(callback, { stopAt: atAppPage })).location?.pathname).toBe("/dashboard");

    const replayer = new RedirectBrowser();
    replayer.setCookie(host, FLOW, flowId);
    const replay = await replayer.go(callback, { stopAt: atAppPage });
    expect(errorOf(replay.location)).toBe("flow_expired");
    expect(replayer.cookie(host, SESSION)).toBeUndefined();
  });

  it("refuses one flow's callback in a browser holding another flow's cookie", async () => {
    const victim = account("victim");
    const victimBrowser = new RedirectBrowser();
    const victimPage = await openProviderLogin(victimBrowser, "open");
    const victimCallback = (await victimBrowser.submitForm(victimPage, { login: victim.login, password: "x" }, { stopAt: atCallback }))
      .location;

    const other = new RedirectBrowser();
    await openProviderLogin(other, "open");
    const crossed = await other.go(victimCallback ?? server.url, { stopAt: atAppPage });
    expect(errorOf(crossed.location)).toBe("flow_mismatch");
    expect(other.cookie(host, SESSION)).toBeUndefined();
  });

  it("takes a flow cookie that is no flow id for no flow: NUL, odd bytes, too long (found by the fuzz on PostgreSQL)", async () => {
    for (const cookie of ["a%00b", "%00", "%FF%FE", "%E2%80%AE", "x".repeat(3000), "a b"]) {
      for (const path of ["/api/auth/oidc/open/callback?code=c&state=s", "/api/auth/github/callback?code=c&state=s"]) {
        const browser = new RedirectBrowser();
        browser.setCookie(host, FLOW, cookie);
        const landed = await browser.go(`${server.url}${path}`, { stopAt: atAppPage });
        expect(errorOf(landed.location), `${path} with ${cookie.slice(0, 20)}`).toBe("flow_expired");
      }
    }
  });

  it("answers a wrong client secret with a readable error and logs the provider's answer", async () => {
    const { login } = account("secret");
    const { landed, browser } = await signIn("wrongsecret", login);
    expect(errorOf(landed)).toBe("provider_refused");
    expect(browser.cookie(host, SESSION)).toBeUndefined();
    expect(log.atLeast(LOG_LEVEL.warn).some((l) => String(l.problem).includes("invalid_client"))).toBe(true);
  });

  it("logs at start a provider that cannot be reached, and its button answers with a readable error", async () => {
    await expect.poll(() => log.atLeast(LOG_LEVEL.error).some((l) => l.provider === "down")).toBe(true);
    const start = await new RedirectBrowser().go(`${server.url}/api/auth/oidc/down/start`, { stopAt: atAppPage });
    expect(start.location?.pathname).toBe("/login");
    expect(start.location?.searchParams.get("error")).toBe("provider_unavailable");
  });

  it("answers an unknown provider with a readable error", async () => {
    const start = await new RedirectBrowser().go(`${server.url}/api/auth/oidc/nope/start`, { stopAt: atAppPage });
    expect(errorOf(start.location)).toBe("unknown_provider");
  });

  it("sends hostile return addresses to the dashboard", async () => {
    const { login } = account("hostile");
    for (const hostile of ["//evil.example/x", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example", "/api/me"]) {
      const { landed } = await signIn("open", login, { returnTo: hostile });
      expect(landed?.host).toBe(host);
      expect(landed?.pathname === "/dashboard" || landed?.pathname === "/%2F%2Fevil.example", hostile).toBe(true);
    }
  });
});

/**
 * Return addresses that pass a check made before normalising and become `//evil.example/x` after it (issue 42):
 * dot segments, written plainly, percent-encoded or after a parent, and with a backslash.
 */
const NORMALISED_AWAY = [
  "/.//evil.example/x",
  "/%2e//evil.example/x",
  "/%2E%2E//evil.example/x",
  "/a/..//evil.example/x",
  "/a/%2e%2e//evil.example/x",
  "/./\\evil.example/x",
  "/.\\/evil.example/x",
];

describe("a return address that normalises to another host", () => {
  /** Follows the flow until it leaves both the provider and this server's API: where the person lands. */
  const landing = (providerOrigin: string) => (next: URL) =>
    next.origin !== providerOrigin && !(next.host === host && next.pathname.startsWith("/api/"));

  it("lands on the dashboard after an OpenID Connect sign-in", async () => {
    const { login } = account("normalised");
    for (const hostile of NORMALISED_AWAY) {
      const browser = new RedirectBrowser();
      const page = await openProviderLogin(browser, "open", hostile);
      const done = await browser.submitForm(page, { login, password: "x" }, { stopAt: landing(provider.issuer) });
      expect(done.location?.href, hostile).toBe(`${server.url}/dashboard`);
    }
  });

  it("lands on the dashboard after a GitHub sign-in", async () => {
    const id = 8_000_000 + Math.floor(Math.random() * 1_000_000);
    github.signedIn = { id, login: `ret${id}`, name: null, emails: [{ email: `ret${id}@example.com`, primary: true, verified: true }] };
    for (const hostile of NORMALISED_AWAY) {
      const start = `${server.url}/api/auth/github/start?return=${encodeURIComponent(hostile)}`;
      const done = await new RedirectBrowser().go(start, { stopAt: landing(new URL(github.url).origin) });
      expect(done.location?.href, hostile).toBe(`${server.url}/dashboard`);
    }
  });
});

describe("the return address", () => {
  it("is a path of this app, or the dashboard", () => {
    for (const hostile of [
      ...NORMALISED_AWAY,
      "//evil.example",
      "/\\evil.example",
      "\\\\evil",
      "https://evil.example",
      "http:/evil",
      "javascript:alert(1)",
      "",
      "/api/auth/logout",
      "/\t/evil",
      42,
    ]) {
      expect(safeReturnPath(hostile), String(hostile)).toBe("/dashboard");
    }
    expect(safeReturnPath("/discussions/join/ABC?x=1")).toBe("/discussions/join/ABC?x=1");
    expect(safeReturnPath("/pair/x#y")).toBe("/pair/x#y");
  });
});

describe("an identity whose email has an account", () => {
  it("is not linked by email; linking after a fresh password check is; unlinking is refused only for the last way in", async () => {
    const email = `owner-${Date.now()}@example.com`;
    const owner = new Device(server.url);
    const user = await owner.register("Owner", email);
    const { login } = account("owner", { email });

    const refused = await signIn("open", login);
    expect(errorOf(refused.landed)).toBe("account_exists");
    expect(refused.browser.cookie(host, SESSION)).toBeUndefined();
    expect(await server.db.selectFrom("identities").selectAll().where("user_id", "=", user.id).execute()).toEqual([]);

    expect((await owner.post("/api/auth/link/open", { password: "not it" })).status).toBe(403);
    expect((await new Device(server.url).post("/api/auth/link/open", { password: "correct horse" })).status).toBe(401);
    const link = await owner.post<{ redirect: string }>("/api/auth/link/open", { password: "correct horse" });
    expect(link.status).toBe(200);
    const flowCookie = /daysync_auth_flow=([^;]+)/.exec(link.headers.get("set-cookie") ?? "")?.[1] ?? "";
    const browser = new RedirectBrowser();
    browser.setCookie(host, FLOW, flowCookie);
    const page = await browser.go(link.body.redirect, { stopAt: atAppPage });
    const linked = await browser.submitForm(page, { login, password: "x" }, { stopAt: atAppPage });
    expect(linked.location?.pathname).toBe("/dashboard/settings");
    expect(linked.location?.searchParams.get("linked")).toBe("open");

    const now = await signIn("open", login);
    expect((await deviceOf(now.browser).get<{ user: User }>(API.me)).body.user.id).toBe(user.id);

    const list = await owner.get<{ identities: Array<{ id: string; label: string }>; has_password: boolean }>("/api/auth/identities");
    expect(list.body).toMatchObject({ has_password: true, identities: [{ label: "Test ID", email }] });
    const identityId = list.body.identities[0]?.id ?? "";
    expect((await new Device(server.url).request("DELETE", `/api/auth/identities/${identityId}`)).status).toBe(401);
    expect((await owner.request("DELETE", `/api/auth/identities/${identityId}`)).status).toBe(204);
    expect(errorOf((await signIn("open", login)).landed)).toBe("account_exists");
  });

  it("refuses to unlink the only way into an account made through a provider", async () => {
    const { login } = account("only");
    const { browser } = await signIn("open", login);
    const device = deviceOf(browser);
    const list = await device.get<{ identities: Array<{ id: string }>; has_password: boolean }>("/api/auth/identities");
    expect(list.body.has_password).toBe(false);
    const stranger = new Device(server.url);
    await stranger.register("Stranger", `stranger-${Date.now()}@example.com`);
    expect((await stranger.request("DELETE", `/api/auth/identities/${list.body.identities[0]?.id}`)).status).toBe(404);
    const res = await device.request("DELETE", `/api/auth/identities/${list.body.identities[0]?.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: "last_sign_in_method" } });
    expect((await device.post("/api/auth/link/github", { password: "anything" })).status).toBe(403);
  });
});

describe("the provider stopped", () => {
  it("answers its button with a readable error while password sign-in keeps working, and works again once back", async () => {
    const email = `while-down-${Date.now()}@example.com`;
    await new Device(server.url).register("Password person", email);
    const { login } = account("back");
    await provider.stop();
    try {
      const start = await new RedirectBrowser().go(`${server.url}/api/auth/oidc/open/start`, { stopAt: atAppPage });
      expect(errorOf(start.location)).toBe("provider_unavailable");
      expect((await new Device(server.url).post(API.login, { email, password: "correct horse" })).status).toBe(200);
    } finally {
      await provider.restart();
    }
    expect((await signIn("open", login)).landed?.pathname).toBe("/dashboard");
  });
});

describe("GitHub", () => {
  const start = (browser: RedirectBrowser) => browser.go(`${server.url}/api/auth/github/start`, { stopAt: atAppPage });

  it("counts only a primary, verified email, and knows the person by the numeric id", async () => {
    const id = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    github.signedIn = {
      id,
      login: `octo${id}`,
      name: null,
      emails: [
        { email: `octo${id}-secondary@example.com`, primary: false, verified: true },
        { email: `octo${id}@example.com`, primary: true, verified: false },
      ],
    };
    expect(errorOf((await start(new RedirectBrowser())).location)).toBe("email_unverified");

    github.signedIn = { ...github.signedIn, emails: [{ email: `octo${id}@example.com`, primary: true, verified: true }] };
    const first = new RedirectBrowser();
    expect((await start(first)).location?.pathname).toBe("/dashboard");
    const me = (await deviceOf(first).get<{ user: User }>(API.me)).body.user;
    expect(me).toMatchObject({ name: `octo${id}`, email: `octo${id}@example.com` });

    // A new login name and email at GitHub: the same person, by id.
    github.signedIn = {
      id,
      login: `renamed${id}`,
      name: "Renamed",
      emails: [{ email: `new${id}@example.com`, primary: true, verified: true }],
    };
    const again = new RedirectBrowser();
    expect((await start(again)).location?.pathname).toBe("/dashboard");
    expect((await deviceOf(again).get<{ user: User }>(API.me)).body.user.id).toBe(me.id);
  });
});

/**
 * Sign-in through a real OpenID Connect provider (oidc-provider on a loopback port, its own login page posted
 * like a browser would) and a stand-in for GitHub, over real HTTP, on SQLite and (server-pg) PostgreSQL.
 */
import { API, type User } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import {
  account,
  atAppPage,
  atCallback,
  deviceOf,
  errorOf,
  FLOW,
  github,
  host,
  log,
  openProviderLogin,
  provider,
  SESSION,
  server,
  signIn,
  useIdentityServers,
} from "../../testing/identity-servers.ts";
import { LOG_LEVEL } from "../../testing/log-capture.ts";
import { RedirectBrowser } from "../../testing/redirect-browser.ts";
import { Device } from "../../testing/test-server.ts";

useIdentityServers();

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
    const stamp = Date.now();
    const { login } = account("domain", { email: `domain-${stamp}@example.com` });
    expect(errorOf((await signIn("domains", login)).landed)).toBe("domain_not_allowed");
    const allowed = account("domain", { email: `domain-${stamp}@example.org` });
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

/**
 * The fresh check of an account without a password (Settings, issue 26): a new sign-in at one of its linked
 * providers (a real OpenID provider on a loopback port) marks the asking device checked for 10 minutes, which
 * setting a first password and deleting the account need. Over real HTTP, on SQLite and (server-pg) PostgreSQL.
 */
import { API, FRESH_CHECK_MS, IDENTITY_API, LIVE_CLOSE, SETTINGS_API, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesNaming } from "../../testing/every-row.ts";
import { freePort } from "../../testing/free-port.ts";
import { startTestProvider, type TestProvider } from "../../testing/oidc-test-provider.ts";
import { RedirectBrowser } from "../../testing/redirect-browser.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const SESSION = "daysync_session";
const FLOW = "daysync_auth_flow";
let server: TestServer;
let provider: TestProvider;
let host: string;
let counter = 0;

beforeAll(async () => {
  const port = await freePort();
  provider = await startTestProvider({ redirectUris: [`http://127.0.0.1:${port}/api/auth/oidc/open/callback`] });
  server = await startTestServer(
    {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOGIN_RATE_LIMIT_MAX: "1000",
      OIDC_PROVIDERS: "open",
      OIDC_OPEN_ISSUER: provider.issuer,
      OIDC_OPEN_CLIENT_ID: provider.clientId,
      OIDC_OPEN_CLIENT_SECRET: provider.clientSecret,
      OIDC_OPEN_LABEL: "Test ID",
      OIDC_OPEN_ALLOW_SIGNUP: "true",
    },
    { port },
  );
  host = new URL(server.url).host;
});

afterAll(async () => {
  await server?.close();
  await provider?.stop();
});

const atAppPage = (next: URL) => next.host === host && !next.pathname.startsWith("/api/");

/** A provider account of its own; signing in with it makes a Daysync account without a password. */
async function providerAccount() {
  counter += 1;
  const login = `fresh-${counter}`;
  const email = `${login}@example.com`;
  provider.accounts.set(login, { email, email_verified: true, name: `Fresh ${counter}` });
  const browser = new RedirectBrowser();
  const page = await browser.go(`${server.url}/api/auth/oidc/open/start?return=/dashboard`, { stopAt: atAppPage });
  await browser.submitForm(page, { login, password: "anything" }, { stopAt: atAppPage });
  const device = new Device(server.url);
  device.cookie = `${SESSION}=${browser.cookie(host, SESSION)}`;
  const user = (await device.get<{ user: User }>(API.me)).body.user;
  return { login, email, device, user };
}

/** Starts the check from `device` and signs in at the provider as `login`; where the browser lands. */
async function confirmAs(device: Device, login: string): Promise<URL | undefined> {
  const started = await device.post<{ redirect: string }>(SETTINGS_API.confirmWith("open"));
  expect(started.status).toBe(200);
  // The provider is asked to sign the person in again, not to reuse a session it still has.
  expect(new URL(started.body.redirect).searchParams.get("prompt")).toBe("login");
  const flowCookie = /daysync_auth_flow=([^;]+)/.exec(started.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const browser = new RedirectBrowser();
  browser.setCookie(host, FLOW, flowCookie);
  const page = await browser.go(started.body.redirect, { stopAt: atAppPage });
  return (await browser.submitForm(page, { login, password: "anything" }, { stopAt: atAppPage })).location;
}

const setPassword = (device: Device, password = "first horse 1") =>
  device.request("PUT", SETTINGS_API.password, { password, confirm_password: password });

describe("an account made through a provider", () => {
  it("links another provider without a password only after a fresh check on this device", async () => {
    const { login, device } = await providerAccount();
    const refused = await device.post(IDENTITY_API.link("open"), {});
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "fresh_check_required" } } });
    // A password sent for an account that has none counts for nothing.
    expect((await device.post(IDENTITY_API.link("open"), { password: "guess" })).status).toBe(403);
    await confirmAs(device, login);
    const started = await device.post<{ redirect: string }>(IDENTITY_API.link("open"), {});
    expect(started.status).toBe(200);
    expect(new URL(started.body.redirect).origin).toBe(new URL(provider.issuer).origin);
    server.clock.advance(FRESH_CHECK_MS);
    expect((await device.post(IDENTITY_API.link("open"), {})).body).toMatchObject({ error: { code: "fresh_check_required" } });
  });

  it("sets a first password only after a fresh check at its provider, which lasts 10 minutes for this device only", async () => {
    const { login, email, device } = await providerAccount();
    expect((await device.get(SETTINGS_API.confirmation)).body).toEqual({ has_password: false, confirmed_until: null });
    expect((await setPassword(device)).body).toMatchObject({ error: { code: "fresh_check_required" } });

    const landed = await confirmAs(device, login);
    expect(landed?.pathname).toBe("/dashboard/settings");
    expect(landed?.searchParams.get("confirmed")).toBe("open");
    expect((await device.get(SETTINGS_API.confirmation)).body).toEqual({
      has_password: false,
      confirmed_until: server.clock.now() + FRESH_CHECK_MS,
    });
    // Another device of the same account is not checked by it.
    const second = new Device(server.url);
    const again = new RedirectBrowser();
    const page = await again.go(`${server.url}/api/auth/oidc/open/start`, { stopAt: atAppPage });
    await again.submitForm(page, { login, password: "anything" }, { stopAt: atAppPage });
    second.cookie = `${SESSION}=${again.cookie(host, SESSION)}`;
    expect((await setPassword(second)).status).toBe(403);

    server.clock.advance(FRESH_CHECK_MS);
    expect((await setPassword(device)).status).toBe(403);
    await confirmAs(device, login);
    expect((await setPassword(device)).status).toBe(200);
    await new Device(server.url).login(email, "first horse 1");
    // With a password, the provider is no longer the only way in: it can be unlinked.
    const list = await device.get<{ identities: Array<{ id: string }>; has_password: boolean }>(IDENTITY_API.identities);
    expect(list.body.has_password).toBe(true);
    expect((await device.request("DELETE", IDENTITY_API.identity(list.body.identities[0]?.id ?? ""))).status).toBe(204);
  });

  it("refuses a check by another provider account, and one for a provider that is not linked", async () => {
    const { device } = await providerAccount();
    const { login: stranger } = await providerAccount();
    const landed = await confirmAs(device, stranger);
    expect(landed?.pathname).toBe("/dashboard/settings");
    expect(landed?.searchParams.get("error")).toBe("confirm_mismatch");
    expect((await device.get(SETTINGS_API.confirmation)).body).toMatchObject({ confirmed_until: null });

    const withPassword = new Device(server.url);
    await withPassword.register("Password only", `password-only-${counter}@example.com`);
    expect((await withPassword.post(SETTINGS_API.confirmWith("open"))).status).toBe(404);
    expect((await new Device(server.url).post(SETTINGS_API.confirmWith("open"))).status).toBe(401);
  });

  it("is deleted after a fresh check and its email typed: no row names it, and its other device is signed out live", async () => {
    const { login, email, device, user } = await providerAccount();
    const second = new RedirectBrowser();
    const page = await second.go(`${server.url}/api/auth/oidc/open/start`, { stopAt: atAppPage });
    await second.submitForm(page, { login, password: "anything" }, { stopAt: atAppPage });
    const secondDevice = new Device(server.url);
    secondDevice.cookie = `${SESSION}=${second.cookie(host, SESSION)}`;
    const live = await secondDevice.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));

    expect((await device.request("DELETE", SETTINGS_API.account, { email })).body).toMatchObject({
      error: { code: "fresh_check_required" },
    });
    await confirmAs(device, login);
    expect((await device.request("DELETE", SETTINGS_API.account, { email: "someone@example.com" })).status).toBe(400);
    expect((await device.request("DELETE", SETTINGS_API.account, { email })).status).toBe(204);
    expect(await live.waitForClose()).toBe(LIVE_CLOSE.sessionRevoked);
    expect(await tablesNaming(server, [user.id, email])).toEqual([]);
    // Signing in with the provider again makes a new, empty account: nothing of the old one comes back.
    const back = new RedirectBrowser();
    const backPage = await back.go(`${server.url}/api/auth/oidc/open/start`, { stopAt: atAppPage });
    await back.submitForm(backPage, { login, password: "anything" }, { stopAt: atAppPage });
    const fresh = new Device(server.url);
    fresh.cookie = `${SESSION}=${back.cookie(host, SESSION)}`;
    expect((await fresh.get<{ user: User }>(API.me)).body.user.id).not.toBe(user.id);
  });
});

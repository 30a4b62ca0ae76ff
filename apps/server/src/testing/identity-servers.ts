/**
 * The servers of the sign-in tests through a provider (modules/identities): a real OpenID Connect provider
 * (oidc-provider on a loopback port, its own login page posted like a browser would) and a stand-in for GitHub, and a
 * Daysync server configured with five providers of the first (open, closed, domains, wrongsecret, and down, which
 * never answers) and with the second. Each test file calls useIdentityServers() once; the bindings below are set
 * before its tests run.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { freePort } from "./free-port.ts";
import { type FakeGithub, startFakeGithub } from "./github-fake.ts";
import { LogCapture } from "./log-capture.ts";
import { startTestProvider, type TestProvider } from "./oidc-test-provider.ts";
import { RedirectBrowser, type Step } from "./redirect-browser.ts";
import { Device, startTestServer, type TestServer } from "./test-server.ts";

export const SESSION = "daysync_session";
export const FLOW = "daysync_auth_flow";
export let server: TestServer;
export let provider: TestProvider;
export let github: FakeGithub;
/** What this file's server logged (its own capture, not shared with another file's server). */
export let log: LogCapture;
export let host: string;
let counter = 0;

/** A provider account that no other test uses. */
export function account(tag: string, claims: { email?: string; email_verified?: boolean; name?: string } = {}) {
  counter += 1;
  const login = `${tag}-${counter}`;
  const email = claims.email ?? `${login}@example.com`;
  provider.accounts.set(login, { email, email_verified: claims.email_verified ?? true, name: claims.name ?? `Person ${login}` });
  return { login, email };
}

/** Stops before following a redirect that leaves the API for a page of the app. */
export const atAppPage = (next: URL) => next.host === host && !next.pathname.startsWith("/api/");
export const atCallback = (next: URL) => next.host === host && next.pathname.endsWith("/callback");

/** Starts at the button's address and stops at the provider's login page. */
export async function openProviderLogin(browser: RedirectBrowser, providerId: string, returnTo = "/dashboard"): Promise<Step> {
  const page = await browser.go(`${server.url}/api/auth/oidc/${providerId}/start?return=${encodeURIComponent(returnTo)}`, {
    stopAt: atAppPage,
  });
  expect(page.location, "the start went back to the app instead of the provider").toBeUndefined();
  expect(page.url.origin).toBe(provider.issuer);
  return page;
}

export async function signIn(providerId: string, login: string, options: { returnTo?: string; browser?: RedirectBrowser } = {}) {
  const browser = options.browser ?? new RedirectBrowser();
  const page = await openProviderLogin(browser, providerId, options.returnTo);
  const done = await browser.submitForm(page, { login, password: "whatever the provider asks" }, { stopAt: atAppPage });
  return { browser, landed: done.location };
}

export function deviceOf(browser: RedirectBrowser): Device {
  const device = new Device(server.url);
  const token = browser.cookie(host, SESSION);
  device.cookie = token ? `${SESSION}=${token}` : "";
  return device;
}

export const errorOf = (landed: URL | undefined) =>
  landed?.pathname === "/login" ? landed.searchParams.get("error") : `not /login: ${landed?.href}`;

/** Starts the provider, the GitHub stand-in and the server before the file's tests, and stops them after. */
export function useIdentityServers(): void {
  beforeAll(async () => {
    log = new LogCapture();
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
}

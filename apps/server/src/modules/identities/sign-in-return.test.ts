/**
 * Where a sign-in through a provider lands: a return address of this app, or the dashboard, whatever the address
 * asked for (issue 42), after an OpenID Connect or a GitHub sign-in, and in the check itself.
 */
import { describe, expect, it } from "vitest";
import { account, github, host, openProviderLogin, provider, server, useIdentityServers } from "../../testing/identity-servers.ts";
import { RedirectBrowser } from "../../testing/redirect-browser.ts";
import { safeReturnPath } from "./identities.service.ts";

useIdentityServers();

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

import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.ts";

const THEME_SCRIPT = '\n      try { document.documentElement.dataset.theme = localStorage.getItem("theme"); } catch {}\n    ';
const LOGIN_SCRIPT = "window.signedOut = true;";
const page = (...inline: string[]) =>
  `<!doctype html><html><head>${inline.map((body) => `<script>${body}</script>`).join("")}` +
  '<script type="module" crossorigin src="/assets/index-1.js"></script><script id="register-sw" src="/registerSW.js" defer></script>' +
  '</head><body><div id="root"></div></body></html>';
const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** The directives of a Content-Security-Policy header, by name. */
function directives(policy: string | null): Map<string, string[]> {
  return new Map(
    (policy ?? "")
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = "", ...values]) => [name, values]),
  );
}

describe("security headers", () => {
  let webDist: string;
  let server: TestServer;

  beforeAll(async () => {
    webDist = mkdtempSync(path.join(tmpdir(), "daysync-web-"));
    writeFileSync(path.join(webDist, "index.html"), page(THEME_SCRIPT));
    writeFileSync(path.join(webDist, "login.html"), page(THEME_SCRIPT, LOGIN_SCRIPT));
    server = await startTestServer({ WEB_DIST: webDist });
  });
  afterAll(async () => {
    await server.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it("lets every page run its own inline scripts by hash, and no other inline or eval'd code", async () => {
    for (const [pathname, inline] of [
      ["/", [THEME_SCRIPT]],
      ["/dashboard", [THEME_SCRIPT]],
      ["/login", [THEME_SCRIPT, LOGIN_SCRIPT]],
      ["/index.html", [THEME_SCRIPT]],
    ] as const) {
      const res = await fetch(server.url + pathname);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const policy = directives(res.headers.get("content-security-policy"));
      const scriptSrc = policy.get("script-src") ?? [];
      expect(scriptSrc).toContain("'self'");
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(scriptSrc).not.toContain("'unsafe-eval'");
      for (const body of inline) expect(scriptSrc, pathname).toContain(sha256(body));
      // Only the pages' own inline scripts: one per distinct script, no hash of a script file.
      expect(scriptSrc.filter((source) => source.startsWith("'sha256-"))).toHaveLength(2);
      expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
      expect(policy.get("object-src")).toEqual(["'none'"]);
      expect(policy.get("base-uri")).toEqual(["'none'"]);
      expect(res.headers.get("permissions-policy")).toContain("camera=(self)");
      expect(res.headers.get("permissions-policy")).toContain("microphone=()");
      expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      // The phone's model, for the name of the session it signs in to (issue 43).
      expect(res.headers.get("accept-ch")).toBe("Sec-CH-UA-Model");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("gives JSON answers a policy that allows nothing", async () => {
    for (const pathname of ["/api/health", "/api/nothing-here", "/api/me"]) {
      const res = await fetch(server.url + pathname);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});

describe("HSTS", () => {
  it("is sent on every answer only when the app is served over HTTPS (COOKIE_SECURE=true)", async () => {
    const secure = await startTestServer({ COOKIE_SECURE: "true" });
    const plain = await startTestServer({ COOKIE_SECURE: "false" });
    try {
      const hsts = (await fetch(`${secure.url}/api/health`)).headers.get("strict-transport-security");
      expect(hsts).toBe("max-age=31536000; includeSubDomains");
      expect((await fetch(`${plain.url}/api/health`)).headers.get("strict-transport-security")).toBeNull();
    } finally {
      await Promise.all([secure.close(), plain.close()]);
    }
  });
});

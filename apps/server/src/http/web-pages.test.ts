import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.ts";

describe("serving the built web app", () => {
  let server: TestServer;
  let webDist: string;

  beforeAll(async () => {
    webDist = mkdtempSync(path.join(tmpdir(), "daysync-web-"));
    writeFileSync(path.join(webDist, "index.html"), "<p>app shell</p>");
    writeFileSync(path.join(webDist, "login.html"), "<p>rendered sign-in</p>");
    mkdirSync(path.join(webDist, "assets"));
    writeFileSync(path.join(webDist, "assets", "app-1234.js"), "export {};");
    server = await startTestServer({ WEB_DIST: webDist });
  });
  afterAll(async () => {
    await server.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  const get = (pathname: string) => fetch(server.url + pathname);

  it("answers a prerendered route with its own page, query string or not", async () => {
    for (const pathname of ["/login", "/login?from=pair"]) {
      const res = await get(pathname);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toBe("<p>rendered sign-in</p>");
    }
  });

  it("answers HEAD of an app route as GET would, without a body", async () => {
    for (const pathname of ["/login", "/dashboard"]) {
      const res = await fetch(server.url + pathname, { method: "HEAD" });
      expect(res.status, pathname).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await res.text()).toBe("");
    }
  });

  it("answers every other app route with the app shell", async () => {
    for (const pathname of ["/dashboard", "/register", "/pair/abc", "/dashboard/days/d1", "/discussions/join/K3Q9"]) {
      const res = await get(pathname);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("<p>app shell</p>");
    }
  });

  it("answers a page that is no app route 404, still with the app shell that shows the error screen and its link home", async () => {
    for (const pathname of ["/nowhere", "/login/extra", "/dashboard/nothing?x=1"]) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await res.text()).toBe("<p>app shell</p>");
    }
  });

  it("serves hashed assets as immutable and keeps API 404s in JSON", async () => {
    const asset = await get("/assets/app-1234.js");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const api = await get("/api/nothing-here");
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

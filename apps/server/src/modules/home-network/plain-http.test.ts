/**
 * Plain HTTP is for the PC itself once HTTPS is on (issue 43): listening on every interface, the server answers plain
 * HTTP in full only on a loopback address; on the home network address (127.0.0.2 plays it: this workplace forbids
 * private-range traffic) it serves the trust page a phone opens before it trusts anything, and nothing else. With
 * HTTPS=off it serves everything, as behind a proxy.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, HTTPS_REQUIRED_TEXT, TRUST_PAGE } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePort } from "../../testing/free-port.ts";
import { type ServerProcess, startServerProcess } from "../../testing/server-process.ts";

const dirs: string[] = [];
async function homeServer(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-plain-"));
  dirs.push(dataDir);
  return startServerProcess({ DATA_DIR: dataDir, HOST: "0.0.0.0", LAN_ADDRESSES: "127.0.0.2", ...env });
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const signIn = (base: string) =>
  fetch(`${base}${API.login}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "ann@example.com", password: "correct horse" }),
  });

describe("HTTPS on: plain HTTP serves the PC in full, the home network only the trust page", () => {
  let server: ServerProcess;
  let lan: string;
  beforeAll(async () => {
    server = await homeServer({ HTTPS_PORT: String(await freePort()) });
    lan = server.url.replace("127.0.0.1", "127.0.0.2");
  });
  afterAll(() => server?.stop());

  it("answers the PC on its loopback address as before", async () => {
    expect((await fetch(`${server.url}${API.health}`)).status).toBe(200);
    expect((await signIn(server.url)).status).toBe(401);
  });

  it("refuses a password sent in plain over the home network, before reading it, with a 403 that says where to go", async () => {
    const res = await signIn(lan);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: "https_required", message: HTTPS_REQUIRED_TEXT } });
  });

  it("refuses a live connection over plain HTTP on the home network", async () => {
    const socket = new WebSocket(`${lan.replace("http", "ws")}/api/live`);
    const status = await new Promise<number>((resolve, reject) => {
      socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.once("open", () => reject(new Error("the live connection opened over plain HTTP")));
      socket.once("error", reject);
    });
    socket.terminate();
    expect(status).toBe(403);
  });

  it("serves the trust page and the authority there, and sends any other page to the trust page", async () => {
    const page = await fetch(`${lan}${TRUST_PAGE}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Android");
    expect((await fetch(`${lan}${TRUST_PAGE}/daysync-ca.pem`)).status).toBe(200);
    for (const other of ["/", "/login", API.health]) {
      const res = await fetch(`${lan}${other}`, { redirect: "manual" });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(TRUST_PAGE);
    }
  });
});

describe("HTTPS=off: plain HTTP everywhere, as behind a proxy", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await homeServer({ HTTPS: "off" });
  });
  afterAll(() => server?.stop());

  it("answers the home network address in full", async () => {
    const lan = server.url.replace("127.0.0.1", "127.0.0.2");
    expect((await fetch(`${lan}${API.health}`)).status).toBe(200);
    expect((await signIn(lan)).status).toBe(401);
  });
});

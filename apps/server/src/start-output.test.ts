import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, HOME_NETWORK_API, serverAddressSchema, TRUST_PAGE } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressToOpen } from "./app/address-to-open.ts";
import { planHttps } from "./app/home-network.ts";
import { startBanner } from "./app/start-banner.ts";
import { loadConfig } from "./config/config.ts";
import { NO_ADMIN_NOTICE } from "./modules/admin/admin.service.ts";
import { freePort } from "./testing/free-port.ts";
import { type ServerProcess, startServerProcess } from "./testing/server-process.ts";
import { serverStartTimeoutMs } from "./testing/start-wait.ts";

let dataDir: string;
let server: ServerProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-start-"));
  // The default log level, as `npm start` runs it.
  server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: "info" }, { captureOutput: true });
});
afterAll(async () => {
  await server.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("what the server prints", () => {
  it("says on one plain line where to open it, and nothing for each request", async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(server.url + API.health)).status).toBe(200);
    await fetch(server.url + API.me);
    // The pipe may deliver the line after the answers: wait for its end, then for anything more to arrive.
    for (const deadline = Date.now() + 10_000; !server.output().endsWith("\n") && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fetch(server.url + API.health);
    // A new installation has no admin yet, and says how it gets one.
    expect(server.output()).toBe(`Daysync is running at ${server.url}\n${NO_ADMIN_NOTICE}\n`);
  });

  it("says nothing of admins once there is one", async () => {
    const registered = await fetch(server.url + API.register, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Owner", email: "owner@example.com", password: "correct horse", confirm_password: "correct horse" }),
    });
    expect(registered.status).toBe(201);
    await server.stop("SIGTERM");
    server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: "info" }, { captureOutput: true });
    for (const deadline = Date.now() + 10_000; !server.output().endsWith("\n") && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fetch(server.url + API.health);
    expect(server.output()).toBe(`Daysync is running at ${server.url}\n`);
  });

  it("names localhost when it listens on every interface", () => {
    expect(addressToOpen("0.0.0.0", 8080)).toBe("http://localhost:8080");
    expect(addressToOpen("::", 8080)).toBe("http://localhost:8080");
    expect(addressToOpen("192.168.1.5", 3000)).toBe("http://192.168.1.5:3000");
    expect(addressToOpen("::1", 3000)).toBe("http://[::1]:3000");
  });
});

/** A GET over HTTPS trusting only `ca` (none: the system's authorities): the answer, and the certificate served. */
function getOverHttps(url: string, ca?: string): Promise<{ status: number; body: string; peer: X509Certificate }> {
  return new Promise((resolve, reject) => {
    const request = httpsGet(url, { ca, agent: false }, (response) => {
      const peer = (response.socket as import("node:tls").TLSSocket).getPeerX509Certificate();
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => (peer ? resolve({ status: response.statusCode ?? 0, body, peer }) : reject(new Error("no certificate"))));
    });
    request.on("error", reject);
  });
}

async function settledOutput(started: ServerProcess): Promise<string> {
  for (const deadline = Date.now() + 10_000; !started.output().endsWith("\n") && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  return started.output();
}

describe("HTTPS on the home network (127.0.0.2 plays the LAN address)", () => {
  let homeDir: string;
  let home: ServerProcess;
  let httpsPort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    homeDir = mkdtempSync(path.join(tmpdir(), "daysync-home-"));
    httpsPort = await freePort();
    env = { DATA_DIR: homeDir, LOG_LEVEL: "info", LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort) };
    home = await startServerProcess(env, { captureOutput: true });
  });
  afterAll(async () => {
    await home?.stop("SIGKILL");
    rmSync(homeDir, { recursive: true, force: true });
  });

  const secureUrl = () => `https://127.0.0.2:${httpsPort}`;

  it("prints a few lines: plain HTTP on this machine, the HTTPS address, where to trust it, and no warning", async () => {
    expect(await settledOutput(home)).toBe(
      [
        `Daysync is running at ${home.url}`,
        `On your home network: ${secureUrl()}`,
        `New phone or computer? Open ${secureUrl()}${TRUST_PAGE} first (or scan the code) to trust this server.`,
        NO_ADMIN_NOTICE,
        "",
      ].join("\n"),
    );
    expect(home.errors()).toBe("");
  });

  it("serves HTTPS there with a certificate of its own authority that names the address", async () => {
    const ca = readFileSync(path.join(homeDir, "tls/ca.crt"), "utf8");
    const answer = await getOverHttps(`${secureUrl()}${API.health}`, ca);
    expect(answer.status).toBe(200);
    expect(answer.peer.subjectAltName).toContain("IP Address:127.0.0.2");
    const authority = new X509Certificate(ca);
    expect(answer.peer.checkIssued(authority)).toBe(true);
    expect(answer.peer.verify(authority.publicKey)).toBe(true);
    expect(authority.ca).toBe(true);
    // A device that does not trust the authority is refused: nothing is served to it unencrypted or unchecked.
    await expect(getOverHttps(`${secureUrl()}${API.health}`)).rejects.toThrow(/self[- ]signed|unable to verify|issuer/i);
  });

  it("keeps plain HTTP for this machine, and tells devices the HTTPS address for their links", async () => {
    const address = serverAddressSchema.parse(await (await fetch(home.url + HOME_NETWORK_API.address)).json());
    // The links' pin for the command line: the SHA-256 of the authority's certificate.
    const pin = createHash("sha256")
      .update(new X509Certificate(readFileSync(path.join(homeDir, "tls/ca.crt"))).raw)
      .digest("hex");
    expect(address).toEqual({ url: secureUrl(), trust_url: `${secureUrl()}${TRUST_PAGE}`, ca_sha256: pin });
  });

  it("serves the page that installs the authority, and the authority in the forms devices take", async () => {
    const page = await fetch(home.url + TRUST_PAGE);
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const system of ["Android", "iPhone and iPad", "macOS", "Windows", "Linux"]) expect(html).toContain(`>${system}</h2>`);
    expect(page.headers.get("content-security-policy")).toContain(`connect-src 'self' ${secureUrl()}`);
    const ca = readFileSync(path.join(homeDir, "tls/ca.crt"), "utf8");
    const der = Buffer.from(await (await fetch(`${home.url}${TRUST_PAGE}/daysync-ca.crt`)).arrayBuffer());
    expect(new X509Certificate(der).fingerprint256).toBe(new X509Certificate(ca).fingerprint256);
    expect(await (await fetch(`${home.url}${TRUST_PAGE}/daysync-ca.pem`)).text()).toBe(ca);
    const profile = await fetch(`${home.url}${TRUST_PAGE}/daysync-ca.mobileconfig`);
    expect(profile.headers.get("content-type")).toBe("application/x-apple-aspen-config");
    expect(await profile.text()).toContain(der.toString("base64"));
  });

  it(
    "makes the authority once: a second start keeps it and its server certificate",
    async () => {
      const caFile = path.join(homeDir, "tls/ca.crt");
      const before = { ca: readFileSync(caFile, "utf8"), server: readFileSync(path.join(homeDir, "tls/server.crt"), "utf8") };
      const made = statSync(caFile).mtimeMs;
      await home.stop("SIGTERM");
      home = await startServerProcess(env, { captureOutput: true });
      expect(readFileSync(caFile, "utf8")).toBe(before.ca);
      expect(statSync(caFile).mtimeMs).toBe(made);
      expect(readFileSync(path.join(homeDir, "tls/server.crt"), "utf8")).toBe(before.server);
      expect((await getOverHttps(`${secureUrl()}${API.health}`, before.ca)).status).toBe(200);
      expect(await settledOutput(home)).toContain(`On your home network: ${secureUrl()}\n`);
      // A start inside the test: as long as a start may take on this machine, and the stop before it.
    },
    serverStartTimeoutMs() + 60_000,
  );

  it("issues the server certificate again when the addresses change, from the same authority", () => {
    const config = loadConfig({ DATA_DIR: homeDir, HOST: "127.0.0.1", LAN_ADDRESSES: "127.0.0.3", HTTPS_PORT: String(httpsPort) });
    const plan = planHttps(config);
    const served = new X509Certificate(plan.listen?.cert ?? "");
    expect(served.subjectAltName).toContain("IP Address:127.0.0.3");
    expect(served.subjectAltName).not.toContain("127.0.0.2");
    expect(served.checkIssued(new X509Certificate(readFileSync(path.join(homeDir, "tls/ca.crt"))))).toBe(true);
  });

  it("shows a phone a QR code of the trust page on a terminal", async () => {
    const config = loadConfig({ DATA_DIR: homeDir, HOST: "127.0.0.1", LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort) });
    const text = await startBanner({ httpUrl: "http://127.0.0.1:8080", plan: planHttps(config), qr: true });
    const lines = text.trimEnd().split("\n");
    expect(lines.slice(0, 3).join("\n")).toContain(`On your home network: ${secureUrl()}`);
    // The rest is the code, drawn with half blocks.
    const esc = String.fromCharCode(27);
    const drawn = lines.slice(3).map((line) => line.replaceAll(new RegExp(`${esc}\\[\\d+m`, "g"), ""));
    expect(drawn.filter((line) => line !== "" && !/^[ █▀▄]+$/.test(line))).toEqual([]);
    expect(drawn.filter((line) => line.includes("█")).length).toBeGreaterThan(10);
    expect(lines.length).toBeLessThan(30);
  });

  it("with HTTPS=off, serves and prints plain HTTP only, as behind a proxy", async () => {
    const config = loadConfig({ DATA_DIR: homeDir, HTTPS: "off", LAN_ADDRESSES: "127.0.0.2" });
    const plan = planHttps(config);
    expect(plan.listen).toBeUndefined();
    expect(await startBanner({ httpUrl: "http://localhost:8080", plan, qr: true })).toBe("Daysync is running at http://localhost:8080\n");
  });
});

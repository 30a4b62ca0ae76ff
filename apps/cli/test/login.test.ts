import { statSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { API, DEVICES_API, type DevicesResponse, PAIRING_API, type PairingRequestDetails } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_PASSWORD } from "../../server/src/modules/accounts/password.ts";
import { Device, startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";
import { decodeTerminalQr } from "./terminal-qr.ts";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const CLI_NAME = `daysync CLI on ${hostname()}`;

let server: TestServer;
let browser: Device;
beforeAll(async () => {
  server = await startTestServer();
  browser = new Device(server.url);
  await browser.request(
    "POST",
    API.register,
    { name: "Ann", email: "ann@example.com", password: "correct horse", confirm_password: "correct horse" },
    { "user-agent": FIREFOX },
  );
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const devices = async (device: Device) => (await device.get<DevicesResponse>(DEVICES_API.list)).body.devices;

describe("daysync login by pairing", () => {
  it("shows a QR code and a short code; a signed-in device approves; the terminal gets its own session, listed by name", async () => {
    const terminal = new Terminal(server.url);
    const cli = terminal.spawn(["login"]);
    const [, shortCode = ""] = await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/);
    // The server knows the code's first half only; the second is the terminal's typed-code password (issue 41).
    const lookup = shortCode.slice(0, 4);
    expect(cli.stdout).toContain(`${server.url}/pair`);

    // The QR code is the pairing link a phone's camera opens; it names the same request as the short code.
    const link = decodeTerminalQr(cli.stdout);
    // Its fragment carries the secret of the key handover (decision 020), which never goes to the server.
    expect(link).toMatch(new RegExp(`^${server.url}/pair/[A-Za-z0-9_-]{20,}#k=[A-Za-z0-9_-]{43}$`));
    const byQr = await browser.get<{ request: PairingRequestDetails }>(
      PAIRING_API.request(new URL(link ?? "").pathname.split("/").pop() ?? ""),
    );
    const byShortCode = await browser.get<{ request: PairingRequestDetails }>(PAIRING_API.request(lookup));
    expect(byShortCode.body.request.name).toBe(CLI_NAME);
    expect(byQr.body.request.created_at).toBe(byShortCode.body.request.created_at);

    expect((await browser.post(PAIRING_API.approve(lookup))).status).toBe(204);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout).toContain("Signed in as Ann (ann@example.com)");

    const listed = await devices(browser);
    expect(listed.map((d) => d.name).sort()).toEqual([CLI_NAME, "Firefox 128 on Linux"].sort());
    const session = path.join(terminal.configDir, "session.json");
    expect(statSync(session).mode & 0o777).toBe(0o600);

    const ls = await terminal.run(["devices"]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toContain(`${CLI_NAME} (this device)`);
    expect(ls.stdout).toContain("Firefox 128 on Linux");
  });

  it("Ctrl+C while waiting for approval says the sign-in was cancelled and exits 130", async () => {
    const cli = new Terminal(server.url).spawn(["login"]);
    await cli.waitFor(/Press Ctrl\+C to cancel\./);
    expect(await cli.kill("SIGINT")).toBe(130);
    expect(cli.stderr).toContain("Sign-in cancelled.");
  });

  it("says so when the other device denies", async () => {
    const cli = new Terminal(server.url).spawn(["login"]);
    const [, shortCode = ""] = await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/);
    await browser.post(PAIRING_API.deny(shortCode.slice(0, 4)));
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain("The sign-in was denied on the other device.");
  });
});

describe("daysync login --password, logout and devices rm", () => {
  it("signs in with the password from standard input (never from argv), and rejects a wrong one", async () => {
    const terminal = new Terminal(server.url);
    const wrong = await terminal.run(["login", "--password", "--email", "ann@example.com"], { input: "not it\n" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("Invalid email or password.");

    const right = await terminal.run(["login", "--password", "--email", "ann@example.com"], { input: "correct horse\n" });
    expect(right.code).toBe(0);
    expect((await terminal.run(["ls"])).code).toBe(0);
  });

  it("points an account with no password (made through a sign-in provider) to daysync login by QR code", async () => {
    await new Device(server.url).register("Provider person", "no-password@example.com");
    // What an account made through a provider holds instead of a password hash.
    await server.db.updateTable("users").set({ password_hash: NO_PASSWORD }).where("email", "=", "no-password@example.com").execute();
    const out = await new Terminal(server.url).run(["login", "--password", "--email", "no-password@example.com"], { input: "!none\n" });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("Invalid email or password.");
    expect(out.stderr).toContain("run `daysync login` (without --password)");
    expect(out.stderr).toContain("or set a password in Settings on the web app first.");
  });

  it("logout ends the session on the server and forgets it here", async () => {
    const terminal = new Terminal(server.url);
    await terminal.run(["login", "--password", "--email", "ann@example.com"], { input: "correct horse\n" });
    const before = (await devices(browser)).length;
    const out = await terminal.run(["logout"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Signed out of ${server.url}.`);
    expect((await devices(browser)).length).toBe(before - 1);

    const after = await terminal.run(["ls"]);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain(`Not signed in to ${server.url}. Sign in with: daysync login ${server.url}`);
  });

  it("devices rm of its own session: the next command says this device was signed out", async () => {
    const terminal = new Terminal(server.url);
    await terminal.run(["login", "--password", "--email", "ann@example.com"], { input: "correct horse\n" });
    const own = (await terminal.run(["devices", "--json"])).stdout;
    const id = (JSON.parse(own) as DevicesResponse["devices"]).find((d) => d.current)?.id ?? "";

    const rm = await terminal.run(["devices", "rm", id]);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain(`Signed out this device (${CLI_NAME})`);

    const next = await terminal.run(["ls"]);
    expect(next.code).toBe(3);
    expect(next.stderr).toContain(`This device was signed out of ${server.url}`);
    expect(next.stderr).toContain(`daysync login ${server.url}`);
  });

  it("a device signed out from the browser's Devices list learns it at its next command", async () => {
    const terminal = new Terminal(server.url);
    await terminal.run(["login", "--password", "--email", "ann@example.com"], { input: "correct horse\n" });
    const own = JSON.parse((await terminal.run(["devices", "--json"])).stdout) as DevicesResponse["devices"];
    const id = own.find((d) => d.current)?.id ?? "";
    expect((await browser.request("DELETE", DEVICES_API.one(id))).status).toBe(204);
    const next = await terminal.run(["send", "hello?"]);
    expect(next.code).toBe(3);
    expect(next.stderr).toContain("This device was signed out");
  });

  it("a server that does not answer is called unreachable (exit 4), not a missing sign-in", async () => {
    const out = await new Terminal(server.url).run(["--server", "http://localhost:1", "ls"]);
    expect(out.code).toBe(4);
    expect(out.stderr).toContain("Cannot reach the Daysync server at http://localhost:1");
    expect(out.stderr).not.toContain("Not signed in");
  });

  it("without a sign-in, every command names the command to run", async () => {
    const out = await new Terminal(server.url).run(["send", "hi"]);
    expect(out.code).toBe(3);
    expect(out.stderr).toContain(`daysync login ${server.url}`);
  });
});

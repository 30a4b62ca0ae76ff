/**
 * The command line against a server's HTTPS on the home network (issue 43): 127.0.0.2 plays the LAN address. Without
 * the server's authority it says what to do; with `--ca` (or DAYSYNC_CA) every request trusts it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/src/testing/free-port.ts";
import { type ServerProcess, startServerProcess } from "../../server/src/testing/server-process.ts";
import { Device } from "../../server/src/testing/test-server.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";
import { PASSWORD } from "./sign-in.ts";

let dataDir: string;
let server: ServerProcess;
let secureUrl: string;
let caFile: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-cli-https-"));
  const httpsPort = await freePort();
  server = await startServerProcess({ DATA_DIR: dataDir, LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort), REGISTRATION: "open" });
  secureUrl = `https://127.0.0.2:${httpsPort}`;
  caFile = path.join(dataDir, "tls/ca.crt");
  await new Device(server.url).register("Ann", "ann@example.com", PASSWORD);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  removeTempDirs();
});

const login = (terminal: Terminal, extra: string[] = []) =>
  terminal.run([...extra, "login", "--password", "--email", "ann@example.com"], { input: `${PASSWORD}\n` });

describe("daysync against a server's HTTPS on the home network", () => {
  it("without its authority, says the certificate is not trusted and how to trust it", async () => {
    const result = await login(new Terminal(secureUrl));
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`The Daysync server at ${secureUrl} has an HTTPS certificate this computer does not trust`);
    expect(result.stderr).toContain("/trust page");
    expect(result.stderr).toContain("--ca daysync-ca.pem");
  });

  it("with --ca FILE signs in and works over HTTPS, and DAYSYNC_CA does the same for later commands", async () => {
    const terminal = new Terminal(secureUrl);
    const signedIn = await login(terminal, ["--ca", caFile]);
    expect(signedIn.stderr).toBe("");
    expect(signedIn.code).toBe(0);
    expect(signedIn.stdout).toContain("Signed in as Ann (ann@example.com)");
    const devices = await terminal.run(["devices"], { env: { DAYSYNC_CA: caFile } });
    expect(devices.code, devices.stderr).toBe(0);
    expect(devices.stdout).toContain("(this device)");
    const untrusted = await terminal.run(["devices"]);
    expect(untrusted.code).toBe(4);
    expect(untrusted.stderr).toContain("--ca daysync-ca.pem");
  });

  it("refuses a --ca file that is not a certificate before sending anything", async () => {
    const result = await login(new Terminal(secureUrl), ["--ca", path.join(dataDir, "tls/ca.key")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("is not a certificate in PEM form");
  });
});

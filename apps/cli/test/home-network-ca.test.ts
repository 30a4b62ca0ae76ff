/**
 * The command line against a server's HTTPS on the home network (issue 43): 127.0.0.2 plays the LAN address. Without
 * the server's authority it says what to do; with `--ca` (or DAYSYNC_CA) every request trusts it; `daysync login LINK`
 * with a link that names the authority (`#…&c=<sha256>`) trusts it for that server without a file.
 */
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HOME_NETWORK_API, serverAddressSchema } from "@daysync/shared";
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
let httpsPort: number;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-cli-https-"));
  httpsPort = await freePort();
  server = await startServerProcess({ DATA_DIR: dataDir, LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort), REGISTRATION: "open" });
  secureUrl = `https://127.0.0.2:${httpsPort}`;
  caFile = path.join(dataDir, "tls/ca.crt");
  await new Device(server.url).register("Ann", "ann@example.com", PASSWORD);
});
/** Data directories of servers started by a test. */
const dirs: string[] = [];
afterAll(async () => {
  await server?.stop();
  for (const dir of [dataDir, ...dirs]) rmSync(dir, { recursive: true, force: true });
  await removeTempDirs();
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

describe("daysync login LINK: the link pins the server's authority", () => {
  const pin = () =>
    createHash("sha256")
      .update(new X509Certificate(readFileSync(caFile)).raw)
      .digest("hex");
  /** A link as Devices → Add a device shows it on the home network's HTTPS address. */
  const linkWith = (c: string) => `${secureUrl}/pair/join/abcdefgh12345678#k=${"a".repeat(43)}&c=${c}`;
  const loginWith = (terminal: Terminal, link: string) =>
    terminal.run(["login", "--password", "--email", "ann@example.com", link], { input: `${PASSWORD}\n` });
  const pinned = new Terminal("");

  it("is what the server tells devices for links on its HTTPS address", async () => {
    const address = serverAddressSchema.parse(await (await fetch(server.url + HOME_NETWORK_API.address)).json());
    expect(address.ca_sha256).toBe(pin());
  });

  it("signs in without --ca, and later commands to that server trust the authority it pinned", async () => {
    const signedIn = await loginWith(pinned, linkWith(pin()));
    expect(signedIn.stderr).toBe("");
    expect(signedIn.code).toBe(0);
    expect(signedIn.stdout).toContain(`Signed in as Ann (ann@example.com) on ${secureUrl}`);
    const devices = await pinned.run(["devices"]);
    expect(devices.code, devices.stderr).toBe(0);
    expect(devices.stdout).toContain("(this device)");
  });

  it("refuses a link naming another authority before sending anything, and pins nothing", async () => {
    const terminal = new Terminal(secureUrl);
    const refused = await loginWith(terminal, linkWith("0".repeat(64)));
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`The server at ${secureUrl} does not show the certificate the link names`);
    const later = await terminal.run(["devices"]);
    expect(later.code).toBe(4);
    expect(later.stderr).toContain("--ca daysync-ca.pem");
  });

  // Last: the server is replaced by one with an authority of its own on the same address.
  it("refuses the server's address once it shows a certificate from another authority, and says what to do", async () => {
    await server.stop();
    const otherDir = mkdtempSync(path.join(tmpdir(), "daysync-cli-https-other-"));
    dirs.push(otherDir);
    server = await startServerProcess({ DATA_DIR: otherDir, LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort) });
    const refused = await pinned.run(["devices"]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      `The Daysync server at ${secureUrl} shows an HTTPS certificate that is not from the authority this terminal pinned`,
    );
    expect(refused.stderr).toContain("daysync login 'LINK'");
  });
});

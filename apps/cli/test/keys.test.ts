import { readFileSync, statSync } from "node:fs";
import { KEYS_API, type KeysState } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Device, startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { removeTempDirs } from "./cli-process.ts";
import { keysFile, keysOf } from "./keys-file.ts";
import { registerBrowser, signedInTerminal } from "./sign-in.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const keyState = async (device: Device) => (await device.get<KeysState>(KEYS_API.keys)).body;

describe("a terminal's keys (decision 020)", () => {
  it("login makes the terminal's key pair in keys.json (mode 600) and, on an account without keys, its first epoch", async () => {
    const browser = await registerBrowser(server.url, "kay@example.com");
    const terminal = await signedInTerminal(server.url, "kay@example.com");
    const keys = keysOf(terminal, server.url);
    expect(statSync(keysFile(terminal)).mode & 0o777).toBe(0o600);
    expect(keys?.key_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Object.keys(keys?.epochs ?? {})).toEqual(["1"]);

    // The server holds epoch 1 wrapped only for the terminal: the browser, which made no key, has no wrap of it.
    const state = await keyState(browser);
    expect(state.epoch).toBe(1);
    expect(state.wraps).toEqual([]);
    expect(state.other_devices_with_current_key).toBe(1);
    expect(readFileSync(keysFile(terminal), "utf8")).not.toContain("PRIVATE KEY");
  });

  it("a second terminal signed in by password gets a key pair but no epoch: it waits for approval", async () => {
    await registerBrowser(server.url, "lee@example.com");
    const first = await signedInTerminal(server.url, "lee@example.com");
    const second = await signedInTerminal(server.url, "lee@example.com");
    expect(Object.keys(keysOf(first, server.url)?.epochs ?? {})).toEqual(["1"]);
    expect(keysOf(second, server.url)?.key_id).not.toBe(keysOf(first, server.url)?.key_id);
    expect(keysOf(second, server.url)?.epochs).toEqual({});

    // `daysync devices` says which can read: the first terminal, not the second, nor the browser that made no key.
    const listed = await second.run(["devices"]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.split("\n");
    // With each listed device's security code (docs/protocol/encryption.md, "Signed device list"): only the first
    // terminal is in the signed list, as it made the account's key; the second is not approved yet.
    expect(rows[0]).toMatch(/\bKEY +SECURITY CODE$/);
    expect(rows.find((row) => row.includes("(this device)"))).toMatch(/waiting for approval +-$/);
    expect(rows.filter((row) => /can read +\d{4} \d{4} \d{4}$/.test(row))).toHaveLength(1);
    expect(rows.filter((row) => /\s- +-$/.test(row))).toHaveLength(1);
  });

  it("two terminals signing in at once on an account without keys: exactly one makes epoch 1", async () => {
    const browser = await registerBrowser(server.url, "max@example.com");
    const [a, b] = await Promise.all([signedInTerminal(server.url, "max@example.com"), signedInTerminal(server.url, "max@example.com")]);
    const holders = [a, b].filter((terminal) => Object.keys(keysOf(terminal, server.url)?.epochs ?? {}).length > 0);
    expect(holders).toHaveLength(1);
    expect((await keyState(browser)).epoch).toBe(1);
  });

  it("logout deletes the terminal's keys", async () => {
    await registerBrowser(server.url, "ned@example.com");
    const terminal = await signedInTerminal(server.url, "ned@example.com");
    expect(keysOf(terminal, server.url)).toBeDefined();
    const logout = await terminal.run(["logout"]);
    expect(logout.code, logout.stderr).toBe(0);
    expect(() => statSync(keysFile(terminal))).toThrow();
  });
});

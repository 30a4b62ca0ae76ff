/**
 * `daysync start-over` (decision 021): a locked terminal with no device left that can approve it starts over at once,
 * its cost confirmed; while a device holds the key it asks to start over in 24 hours, which that device hears and can
 * cancel, and starts over once the day has passed. The server decides when: the terminal's word is never enough.
 */
import { API, KEYS_API, keysStateSchema, SEALED_TEXT, START_OVER_TEXT } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { NOTHING_TO_START_OVER, STARTED_OVER } from "../src/commands/start-over.ts";
import { EXIT } from "../src/errors.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";
import { type KeyHolder, keyHolder, pairedTerminal, sendSealed } from "./key-holder.ts";
import { PASSWORD } from "./sign-in.ts";

const DAY = 24 * 60 * 60_000;
const ASKED = /You asked to start over\. Unless one of your other devices cancels it, this device can start over from .+\./;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

async function lockedTerminal(email: string): Promise<Terminal> {
  const terminal = new Terminal(server.url);
  const login = await terminal.run(["login", "--password", "--email", email], { input: `${PASSWORD}\n` });
  expect(login.code, login.stderr).toBe(0);
  return terminal;
}

const startOverOf = async (holder: KeyHolder) => keysStateSchema.parse((await holder.device.get(KEYS_API.keys)).body).start_over;

describe("daysync start-over", () => {
  it("with no other device holding the key: says what it costs, wants it confirmed, then makes a new key", {
    timeout: 180_000,
  }, async () => {
    const email = "solo@example.com";
    const holder = await keyHolder(server.url, email);
    await sendSealed(holder, "written before the phone was lost", server.clock.now());
    expect((await holder.device.post(API.logout, {})).status).toBeLessThan(300);
    const terminal = await lockedTerminal(email);

    const unconfirmed = await terminal.run(["start-over"]);
    expect(unconfirmed.code).toBe(EXIT.usage);
    expect(unconfirmed.stderr).toContain(START_OVER_TEXT.consequences);
    expect(unconfirmed.stderr).toContain("run it again with --yes");
    expect((await terminal.run(["ls"])).stdout).toContain(SEALED_TEXT.locked);

    const done = await terminal.run(["start-over", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(STARTED_OVER);
    expect((await terminal.run(["send", "after starting over"])).code).toBe(0);
    const listed = await terminal.run(["ls"]);
    expect(listed.stdout).toContain("after starting over");
    expect((await terminal.run(["start-over"])).stdout).toContain(NOTHING_TO_START_OVER);
  });

  it("while a device holds the key: asks for 24 hours, the holder sees it, --cancel withdraws, and after a day it starts over", {
    timeout: 180_000,
  }, async () => {
    const email = "pair@example.com";
    const holder = await keyHolder(server.url, email);
    await sendSealed(holder, "only the holder reads this", server.clock.now());
    const terminal = await lockedTerminal(email);

    const early = await terminal.run(["start-over", "--yes"]);
    // No request yet: --yes asks, it does not start over while a device holds the key.
    expect(early.code, early.stderr).toBe(0);
    expect(early.stdout).toMatch(/Your messages can be read on .+, last seen .+\./);
    expect(early.stdout).toMatch(ASKED);
    expect(await startOverOf(holder)).toMatchObject({ by_this_device: false });

    const withdrawn = await terminal.run(["start-over", "--cancel"]);
    expect(withdrawn.stdout).toContain(START_OVER_TEXT.withdrawn);
    expect(await startOverOf(holder)).toBeUndefined();

    expect((await terminal.run(["start-over"])).stdout).toMatch(ASKED);
    // Before the day has passed, the server refuses, whatever the terminal says.
    const tooSoon = await terminal.run(["start-over", "--yes"]);
    expect(tooSoon.code).toBe(EXIT.locked);
    expect(tooSoon.stderr).toMatch(ASKED);
    expect((await terminal.run(["ls"])).stdout).toContain(SEALED_TEXT.locked);

    server.clock.advance(DAY + 60_000);
    const done = await terminal.run(["start-over", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(STARTED_OVER);
    // The request is used up by the new epoch, which only this terminal holds (the holder's key is now an old one).
    const after = keysStateSchema.parse((await holder.device.get(KEYS_API.keys)).body);
    expect(after.start_over).toBeUndefined();
    expect(after.epoch).toBe(2);
    expect((await terminal.run(["start-over"])).stdout).toContain(NOTHING_TO_START_OVER);
  });

  it("on a terminal that can read, another device's request is shown and --cancel cancels it", { timeout: 180_000 }, async () => {
    const email = "keeper@example.com";
    const holder = await keyHolder(server.url, email);
    const reader = await pairedTerminal(server.url, holder);
    expect((await reader.run(["start-over"])).stdout).toContain(NOTHING_TO_START_OVER);
    const locked = await lockedTerminal(email);
    expect((await locked.run(["start-over"])).stdout).toMatch(ASKED);

    const shown = await reader.run(["start-over"]);
    expect(shown.stdout).toMatch(/A device signed in to your account asked to start over on .+ If it was not you, cancel it/);
    expect(shown.stdout).toContain("daysync start-over --cancel");
    const cancelled = await reader.run(["start-over", "--cancel"]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(START_OVER_TEXT.cancelled);
    expect(await startOverOf(holder)).toBeUndefined();
    expect((await locked.run(["start-over", "--cancel"])).stdout).toContain("No request to start over stands.");
  });
});

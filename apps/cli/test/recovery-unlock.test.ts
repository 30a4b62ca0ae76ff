/**
 * `daysync unlock` (docs/protocol/encryption.md, "Recovery code"): a terminal signed in by password is locked; the account's recovery
 * code, made on another device, unlocks it, typed without echo or piped in. A code that is not this account's, or
 * has a typo, is refused with the web app's sentences and leaves it locked.
 */
import {
  DEVICE_LIST_API,
  deviceListSchema,
  KEYS_API,
  keysStateSchema,
  RECOVERY_TEXT,
  recoveryStateSchema,
  SEALED_TEXT,
} from "@daysync/shared";
import { makeRecoveryCode, makeRecoveryKit, parseRecoveryCode, recoveryMember } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { UNLOCKED } from "../src/commands/unlock.ts";
import { EXIT } from "../src/errors.ts";
import { LOCKED_TERMINAL } from "../src/sealing/key-approval.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";
import { type KeyHolder, keyHolder, sendSealed } from "./key-holder.ts";
import { PASSWORD } from "./sign-in.ts";

let server: TestServer;
let holder: KeyHolder;
let code: string;
const email = "rio@example.com";
beforeAll(async () => {
  server = await startTestServer();
  holder = await keyHolder(server.url, email);
  code = await makeRecoveryCode();
  const state = keysStateSchema.parse((await holder.device.get(KEYS_API.keys)).body);
  const kit = await makeRecoveryKit(holder.userId, holder.held, state, code);
  const saved = await holder.device.request("PUT", KEYS_API.recovery, kit);
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  expect(recoveryStateSchema.parse(saved.body).recovery).toBeDefined();
  await holder.keys.recoveryChanged(await recoveryMember(holder.userId, code));
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/** A code that reads well but has one character changed: its check bits catch it (retried in the 1 in 1024 they do not). */
async function withTypo(good: string): Promise<string> {
  const letters = good.replace(/[^0-9A-Z]/g, "").split("");
  for (let at = 0; at < letters.length; at++) {
    const typo = [...letters];
    typo[at] = typo[at] === "7" ? "8" : "7";
    const failed = await parseRecoveryCode(typo.join("")).then(
      () => false,
      () => true,
    );
    if (failed) return typo.join("");
  }
  throw new Error("no typo the check catches");
}

describe("daysync unlock", () => {
  it("unlocks a terminal signed in by password with the recovery code; refuses a wrong one and a typo", { timeout: 180_000 }, async () => {
    await sendSealed(holder, "the safe opens with 1234", server.clock.now());
    const terminal = new Terminal(server.url);
    const login = await terminal.run(["login", "--password", "--email", email], { input: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(LOCKED_TERMINAL);
    expect(login.stdout).toContain("Have your recovery code? Run daysync unlock.");
    expect((await terminal.run(["ls"])).stdout).toContain(SEALED_TEXT.locked);

    const other = await terminal.run(["unlock"], { input: `${await makeRecoveryCode()}\n` });
    expect(other.code).toBe(EXIT.locked);
    expect(other.stderr).toContain(RECOVERY_TEXT.mismatch);
    const typo = await terminal.run(["unlock"], { input: `${await withTypo(code)}\n` });
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.stderr).toContain(RECOVERY_TEXT.typo);
    const empty = await terminal.run(["unlock"], { input: "\n" });
    expect(empty.code).toBe(EXIT.usage);
    expect((await terminal.run(["ls"])).stdout).toContain(SEALED_TEXT.locked);

    // As it was written down: lower case and with its spaces is the same code.
    const unlocked = await terminal.run(["unlock"], { input: `${code.toLowerCase()}\n` });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stdout).toContain(UNLOCKED);
    // The recovery key, in the signed device list since the code was made, signed the terminal in.
    const recoveryKeyId = recoveryStateSchema.parse((await holder.device.get(KEYS_API.recovery)).body).recovery?.key_id;
    const entries = deviceListSchema.parse((await holder.device.get(DEVICE_LIST_API.list)).body).entries;
    expect(entries.map((e) => [e.kind, e.signer_key_id])).toEqual([
      ["add", holder.held.keyId],
      ["add", holder.held.keyId],
      ["add", recoveryKeyId],
    ]);
    const listed = await terminal.run(["ls"]);
    expect(listed.stdout).toContain("the safe opens with 1234");
    expect(listed.stdout).not.toContain(SEALED_TEXT.locked);

    // And it can send now: the server takes only sealed text.
    expect((await terminal.run(["send", "unlocked and sending"])).code).toBe(0);
    const again = await terminal.run(["unlock"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("This terminal can already read your messages.");
  });

  it("says it needs signing in first when this terminal is signed out", async () => {
    const out = await new Terminal(server.url).run(["unlock"], { input: `${code}\n` });
    expect(out.code).toBe(EXIT.signedOut);
  });
});

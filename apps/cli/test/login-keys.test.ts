/**
 * `daysync login` by QR code hands the account's key to the terminal (docs/protocol/encryption.md, "QR pairing handover"): the QR link carries
 * the secret in its fragment, the approving device (here a key holder in this process, with the same shared code the
 * web app uses) checks the terminal's proof and hands over, and the terminal keeps its pair and the epoch in keys.json.
 */
import {
  API,
  APPROVAL_TEXT,
  HANDOVER_TEXT,
  KEYS_API,
  type KeysState,
  PAIRING_API,
  type PairingHandover,
  type PairingRequestDetails,
} from "@daysync/shared";
import {
  type CryptoKey,
  deriveEpochKeys,
  fromBase64Url,
  makeHandover,
  makePairingSecret,
  secretOfFragment,
  verifyAskingKey,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { typingDevice } from "../../server/src/testing/typed-pairing.ts";
import { LOCKED_TERMINAL } from "../src/sealing/key-approval.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";
import { keyHolder } from "./key-holder.ts";
import { keysOf } from "./keys-file.ts";
import { decodeTerminalQr } from "./terminal-qr.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/** The terminal's login QR link: its code, and the secret in its fragment. */
async function scan(cli: ReturnType<Terminal["spawn"]>) {
  await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/);
  const link = decodeTerminalQr(cli.stdout) ?? "";
  const url = new URL(link);
  return { link, code: url.pathname.split("/").pop() ?? "", secret: secretOfFragment(url.hash) };
}

describe("daysync login by QR code gets the account's key", () => {
  it("the QR link carries the secret; the approver checks the proof and hands over; keys.json holds epoch 1", async () => {
    const approver = await keyHolder(server.url, "quinn@example.com");
    const terminal = new Terminal(server.url);
    const cli = terminal.spawn(["login"]);
    const { link, code, secret } = await scan(cli);
    expect(link).toMatch(new RegExp(`^${server.url}/pair/[A-Za-z0-9_-]{20,}#k=[A-Za-z0-9_-]{43}$`));
    if (!secret) throw new Error("no secret in the QR link");

    const { request } = (await approver.device.get<{ request: PairingRequestDetails }>(PAIRING_API.request(code))).body;
    expect(await verifyAskingKey(secret, request)).toBe(true);
    const state = (await approver.device.get<KeysState>(KEYS_API.keys)).body;
    const handover = await makeHandover({
      userId: approver.userId,
      held: approver.held,
      state,
      secret,
      requestId: request.request_id,
      publicKey: request.public_key ?? "",
    });
    expect((await approver.device.post(PAIRING_API.approve(code), { handover })).status).toBe(204);
    expect(await cli.exited).toBe(0);
    expect(cli.stderr).not.toContain(HANDOVER_TEXT.handoverNotVerified);

    const kept = keysOf(terminal, server.url);
    expect(kept?.user_id).toBe(approver.userId);
    expect(Object.keys(kept?.epochs ?? {})).toEqual(["1"]);
    // The terminal's epoch 1 is the approver's: its roster key checks the approver's own roster row.
    const epoch1 = await deriveEpochKeys(fromBase64Url(kept?.epochs["1"] ?? ""), approver.userId);
    const tagKey = approver.held.epochs.get(1)?.roster;
    const probe = new TextEncoder().encode("same key?");
    const sign = (key: CryptoKey) => crypto.subtle.sign("HMAC", key, probe).then((mac) => Buffer.from(mac).toString("hex"));
    expect(await sign(epoch1.roster)).toBe(await sign(tagKey as CryptoKey));

    const ls = await terminal.run(["devices"]);
    expect(ls.code, ls.stderr).toBe(0);
  });

  it("the code typed on a signed-in device signs the terminal in holding the key, with no second round", async () => {
    const approver = await keyHolder(server.url, "tate@example.com");
    const terminal = new Terminal(server.url);
    const cli = terminal.spawn(["login"]);
    const [, code = ""] = await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/);
    const phone = typingDevice(approver.device, approver.userId, approver.held);
    const step = await phone.typeAndFollow(code);
    expect(step).toEqual({ step: "confirmed" });
    await phone.approver.approve();
    expect(await cli.exited).toBe(0);
    expect(cli.stdout).toContain(APPROVAL_TEXT.waitingForHandover);
    expect(cli.stdout).not.toContain(LOCKED_TERMINAL);
    expect(cli.stderr).not.toContain(HANDOVER_TEXT.handoverNotVerified);
    expect(Object.keys(keysOf(terminal, server.url)?.epochs ?? {})).toEqual(["1"]);
  });

  it("a wrong code typed three times ends the terminal's sign-in with the approval's words", async () => {
    const approver = await keyHolder(server.url, "uma@example.com");
    const cli = new Terminal(server.url).spawn(["login"]);
    const [, code = ""] = await cli.waitFor(/Code: ([0-9A-Z]{4}-[0-9A-Z]{4})/);
    const wrong = `${code.slice(0, 5)}${code.endsWith("0000") ? "1111" : "0000"}`;
    for (let typed = 1; typed <= 3; typed++) {
      const phone = typingDevice(approver.device, approver.userId, approver.held);
      const step = await phone.typeAndFollow(wrong);
      expect(step.step).toBe(typed < 3 ? "wrong_code" : "ended");
    }
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain(APPROVAL_TEXT.endedWrongCodes);
  });

  it("a handover the terminal cannot open leaves it signed in, locked, and saying so", async () => {
    const approver = await keyHolder(server.url, "rue@example.com");
    const terminal = new Terminal(server.url);
    const cli = terminal.spawn(["login"]);
    const { code } = await scan(cli);
    const { request } = (await approver.device.get<{ request: PairingRequestDetails }>(PAIRING_API.request(code))).body;
    const state = (await approver.device.get<KeysState>(KEYS_API.keys)).body;
    // Wrapped with another secret, as a server that swapped the wraps would have to.
    const handover = (await makeHandover({
      userId: approver.userId,
      held: approver.held,
      state,
      secret: makePairingSecret(),
      requestId: request.request_id,
      publicKey: request.public_key ?? "",
    })) as PairingHandover;
    expect((await approver.device.post(PAIRING_API.approve(code), { handover })).status).toBe(204);
    expect(await cli.exited).toBe(0);
    expect(cli.stderr).toContain(HANDOVER_TEXT.handoverNotVerified);
    expect(keysOf(terminal, server.url)?.epochs).toEqual({});
    expect((await terminal.run(["devices"])).code).toBe(0);
    expect((await approver.device.get(API.me)).status).toBe(200);
  });
});

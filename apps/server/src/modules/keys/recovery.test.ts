/**
 * The recovery code on the server (docs/protocol/encryption.md, "Recovery code"), with real devices' keys made by the crypto library over
 * HTTP: storing, replacing and removing it, a locked device unlocking with it, across a rotation, and Start over.
 */
import { API, DEVICES_API, type DevicesResponse, KEYS_API, type RecoveryState, SETTINGS_API, type SetRecoveryInput } from "@daysync/shared";
import { deriveRecoveryKeys, exportPublicKey, makeRecoveryCode, RecoveryRefusedError, toBase64Url } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesNaming } from "../../testing/every-row.ts";
import { keyedAccount, keysOf, recoveryOf, UnexpectedAnswer } from "../../testing/key-devices.ts";
import { b64, newKey } from "../../testing/key-material.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/** A new account whose first device holds epoch 1, and a second device of it, signed in by password and locked. */
async function account(name: string) {
  const { keyed: a, signIn, user, email } = await keyedAccount(server, name);
  return { a, b: await signIn(), user, email };
}

async function unlockRefusal(work: Promise<unknown>) {
  try {
    await work;
    return "unlocked";
  } catch (error) {
    if (error instanceof RecoveryRefusedError) return error.reason;
    if (error instanceof UnexpectedAnswer) return error.answer.status;
    throw error;
  }
}

describe("PUT, GET and DELETE /api/keys/recovery", () => {
  it("stores the recovery key with its anchor, wraps and row; GET /api/keys says a code exists and lists it as a holder", async () => {
    const { a, b } = await account("Ria");
    expect(await recoveryOf(b.device)).toBeNull();
    expect((await keysOf(a.device)).recovery).toBeUndefined();

    const kit = await a.kit(await makeRecoveryCode());
    const res = await a.device.request<RecoveryState>("PUT", KEYS_API.recovery, kit);
    expect(res.status).toBe(200);
    const now = server.clock.now();
    expect(res.body.recovery).toMatchObject({
      key_id: kit.roster.key_id,
      public_key: kit.public_key,
      created_at: now,
      anchor_epoch: 1,
      anchor: kit.anchor,
      wraps: [{ epoch: 1, recipient_key_id: kit.roster.key_id, sender_key_id: a.held().keyId, mode: "auth", created_at: now }],
    });
    expect(res.body.recovery?.roster.map((r) => [r.key_id, r.kind])).toEqual(
      expect.arrayContaining([
        [a.held().keyId, "device"],
        [kit.roster.key_id, "recovery"],
      ]),
    );
    // The locked device reads the same, and so does GET after PUT.
    expect(await recoveryOf(b.device)).toEqual(res.body.recovery);
    const state = await keysOf(b.device);
    expect(state.recovery).toEqual({ key_id: kit.roster.key_id, created_at: now });
    expect(state.holders).toContain(kit.roster.key_id);
    expect(state.other_devices_with_current_key).toBe(1);
  });

  it("refuses bad bodies with 400 naming the field, and out-of-turn requests with 401, 403 and 409", async () => {
    const { a, b } = await account("Val");
    const good = await a.kit(await makeRecoveryCode());
    const put = (device: Device, body: unknown) => device.request("PUT", KEYS_API.recovery, body);
    const wrap = good.wraps[0] as SetRecoveryInput["wraps"][number];
    const other = newKey();
    const cases: Array<[unknown, string]> = [
      [{ ...good, anchor: undefined }, "anchor"],
      [{ ...good, anchor: b64(40) }, "anchor"],
      [{ ...good, proof_hash: "not base64url!" }, "proof_hash"],
      [{ ...good, anchor_epoch: 0 }, "anchor_epoch"],
      [{ ...good, roster: { ...good.roster, kind: "device" } }, "roster.kind"],
      [{ ...good, roster: { ...good.roster, epoch: 2 } }, "roster.epoch"],
      [{ ...good, public_key: other.publicKey }, "roster.public_key"],
      [{ ...good, wraps: [{ ...wrap, mode: "psk" }] }, "wraps.0.mode"],
      [{ ...good, wraps: [{ ...wrap, recipient_key_id: other.keyId }] }, "wraps.0.recipient_key_id"],
      [{ ...good, wraps: [wrap, wrap] }, "wraps.1.epoch"],
      [{ ...good, wraps: [] }, "wraps"],
      [{ ...good, roster: { ...good.roster, key_id: other.keyId }, wraps: [{ ...wrap, recipient_key_id: other.keyId }] }, "roster.key_id"],
      [{ ...good, roster: { ...good.roster, added_by_key_id: other.keyId } }, "roster.added_by_key_id"],
      [{ ...good, wraps: [{ ...wrap, sender_key_id: other.keyId }] }, "wraps.0.sender_key_id"],
      ["just text", ""],
    ];
    for (const [body, field] of cases) {
      const res = await put(a.device, body);
      expect(res.status, field).toBe(400);
      expect(res.body, field).toMatchObject({ error: { code: "validation", message: expect.any(String) } });
      if (field) expect((res.body as { error: { field?: string } }).error.field, JSON.stringify(res.body)).toBe(field);
    }
    expect(await recoveryOf(a.device)).toBeNull();

    // A locked device cannot make or remove the code; a device without a key is told to send it first.
    const fromB = {
      ...good,
      roster: { ...good.roster, added_by_key_id: b.held().keyId },
      wraps: good.wraps.map((w) => ({ ...w, sender_key_id: b.held().keyId })),
    };
    expect(await put(b.device, fromB)).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    expect(await b.device.request("DELETE", KEYS_API.recovery)).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const keyless = new Device(server.url);
    await keyless.login((await a.device.get<{ user: { email: string } }>(API.me)).body.user.email);
    expect(await put(keyless, good)).toMatchObject({ status: 409, body: { error: { code: "device_key_missing" } } });
    // The anchor must be of the current epoch; nothing is stored under an epoch the account moved on from.
    const ahead = { ...good, anchor_epoch: 2, roster: { ...good.roster, epoch: 2 }, wraps: [wrap, { ...wrap, epoch: 2 }] };
    expect(await put(a.device, ahead)).toMatchObject({
      status: 409,
      body: { error: { code: "key_epoch_taken", field: "anchor_epoch" } },
    });
    expect(await a.device.request("DELETE", KEYS_API.recovery)).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });

    const anonymous = new Device(server.url);
    for (const [method, path, body] of [
      ["GET", KEYS_API.recovery, undefined],
      ["PUT", KEYS_API.recovery, good],
      ["DELETE", KEYS_API.recovery, undefined],
      ["POST", KEYS_API.recoveryUnlock, { proof: b64(32), wraps: [], roster: good.roster }],
    ] as const) {
      expect(await anonymous.request(method, path, body)).toMatchObject({ status: 401, body: { error: { code: "unauthenticated" } } });
    }
  });

  it("another account can neither read, replace, remove nor use it", async () => {
    const alice = await account("Ali");
    const bob = await account("Bob");
    const code = await makeRecoveryCode();
    const saved = (await alice.a.makeCode(code)).recovery;

    // Each account reads only its own: Bob's has none.
    expect(await recoveryOf(bob.a.device)).toBeNull();
    expect((await keysOf(bob.a.device)).recovery).toBeUndefined();
    // Alice's kit sent by Bob lands on nothing of Alice's: it names epochs and keys of her account, checked against his.
    const aliceKit = await alice.a.kit(await makeRecoveryCode());
    expect((await bob.a.device.request("PUT", KEYS_API.recovery, aliceKit)).status).toBe(400);
    expect(await bob.a.device.request("DELETE", KEYS_API.recovery)).toMatchObject({ status: 404 });
    // Bob's locked device typing Alice's code: his account has no recovery code to match.
    expect(await unlockRefusal(bob.b.unlock(code))).toBe("none");
    expect(await recoveryOf(alice.b.device)).toEqual(saved);
  });

  it("replacing the code drops the old key's wraps; removing it drops the new one's, and the old codes no longer open", async () => {
    const { a, b } = await account("Rex");
    const first = await makeRecoveryCode();
    const firstKey = (await a.makeCode(first)).recovery?.key_id ?? "";
    server.clock.advance(1000);
    const second = await makeRecoveryCode();
    const replaced = (await a.makeCode(second)).recovery;
    expect(replaced?.key_id).not.toBe(firstKey);
    expect(replaced?.created_at).toBe(server.clock.now());
    expect((await keysOf(a.device)).holders).not.toContain(firstKey);
    expect(await unlockRefusal(b.unlock(first))).toBe("mismatch");

    expect((await a.device.request("DELETE", KEYS_API.recovery)).status).toBe(204);
    expect(await recoveryOf(b.device)).toBeNull();
    const state = await keysOf(a.device);
    expect(state.recovery).toBeUndefined();
    expect(state.holders).toEqual([a.held().keyId]);
    expect(await unlockRefusal(b.unlock(second))).toBe("none");
  });
});

describe("POST /api/keys/recovery/unlock", () => {
  it("a locked device that typed the code adds itself and can read; Devices says so", async () => {
    const { a, b, user, email } = await account("Una");
    const code = await makeRecoveryCode();
    await a.makeCode(code);

    await b.unlock(code);
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });
    const state = await keysOf(b.device);
    expect(state.wraps).toMatchObject([{ epoch: 1, recipient_key_id: b.held().keyId, sender_key_id: b.held().keyId, mode: "auth" }]);
    expect(state.roster.find((r) => r.key_id === b.held().keyId)).toMatchObject({
      kind: "device",
      added_by_key_id: state.recovery?.key_id,
    });
    const devices = (await a.device.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    expect(devices.find((d) => d.id === state.session_id)?.key_status).toBe("can_read");

    // Deleting the account takes the recovery key with everything else.
    const keyIdOfRecovery = state.recovery?.key_id ?? "";
    expect((await a.device.request("DELETE", SETTINGS_API.account, { email, password: "correct horse" })).status).toBe(204);
    expect(await tablesNaming(server, [user.id, keyIdOfRecovery])).toEqual([]);
  });

  it("refuses a wrong proof (403), bad bodies (400), a stale epoch (409) and unknown epochs (404), storing nothing", async () => {
    const { a, b, user } = await account("Pia");
    const code = await makeRecoveryCode();
    const saved = (await a.makeCode(code)).recovery;
    if (!saved) throw new Error("no recovery");
    const publicKey = await exportPublicKey(b.held().pair.publicKey);
    const row = { epoch: 1, key_id: b.held().keyId, public_key: publicKey, kind: "device", added_by_key_id: saved.key_id, tag: b64(32) };
    const wraps = [{ epoch: 1, enc: b64(32), ciphertext: b64(48) }];
    const body = { proof: b64(32), wraps, roster: row };
    const unlock = (input: unknown) => b.device.post(KEYS_API.recoveryUnlock, input);

    expect(await unlock(body)).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", message: "That recovery code does not match this account." } },
    });
    const proof = toBase64Url((await deriveRecoveryKeys(code, user.id)).proof);
    const cases: Array<[unknown, number, string, string]> = [
      [{ ...body, proof: b64(16) }, 400, "validation", "proof"],
      [{ ...body, wraps: [] }, 400, "validation", "wraps"],
      [{ ...body, roster: { ...row, kind: "recovery" } }, 400, "validation", "roster.kind"],
      [{ ...body, wraps: [{ ...wraps[0], epoch: 2 }] }, 400, "validation", "wraps"],
      [{ ...body, roster: { ...row, key_id: a.held().keyId } }, 400, "validation", "roster.key_id"],
      [{ ...body, proof, roster: { ...row, added_by_key_id: b.held().keyId } }, 400, "validation", "roster.added_by_key_id"],
      [{ proof, wraps: [{ ...wraps[0], epoch: 2 }], roster: { ...row, epoch: 2 } }, 409, "key_epoch_taken", "roster.epoch"],
    ];
    for (const [input, status, code, field] of cases) {
      expect(await unlock(input), field).toMatchObject({ status, body: { error: { code, field, message: expect.any(String) } } });
    }
    expect(await unlock({ proof, wraps: [...wraps, { ...wraps[0], epoch: 5 }], roster: row })).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    expect((await keysOf(b.device)).wraps).toEqual([]);

    // The right code then unlocks the same device.
    await b.unlock(code);
    expect((await keysOf(b.device)).wraps.map((w) => w.epoch)).toEqual([1]);
  });
});

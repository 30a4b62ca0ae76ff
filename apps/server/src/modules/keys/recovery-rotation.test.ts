/**
 * The recovery code across the account's epochs (docs/protocol/encryption.md, "Locked devices and Start over", "Recovery code" and "Rotation and revocation"), with real devices' keys over HTTP:
 * a rotation after a removal wraps the new epoch for the recovery key too, so a device made after it still unlocks
 * with the same code and holds the new epoch. Start over is refused while a code is set (start-over-guard.test.ts).
 */
import { DEVICES_API, KEYS_API } from "@daysync/shared";
import { makeRecoveryCode } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { keyDevice, keysOf, recoveryOf } from "../../testing/key-devices.ts";
import { b64 } from "../../testing/key-material.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/** A new account whose first device holds epoch 1 and made a recovery code. */
async function accountWithCode(name: string) {
  const { device, user, email } = await person(server, name);
  const a = keyDevice(device, user.id);
  expect((await a.keys.sync()).state).toBe("ready");
  const code = await makeRecoveryCode();
  await a.makeCode(code);
  const signIn = async () => {
    const fresh = new Device(server.url);
    await fresh.login(email);
    const keyed = keyDevice(fresh, user.id);
    expect((await keyed.keys.sync()).state).toBe("locked");
    return keyed;
  };
  return { a, code, user, signIn };
}

describe("the recovery code across a rotation", () => {
  it("a rotation wraps the new epoch for the recovery key, and a device signed in after it unlocks into the new epoch", async () => {
    const { a, code, signIn } = await accountWithCode("Rot");
    const b = await signIn();
    await b.unlock(code);
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });

    // A is signed out from B: a rotation is due, and B makes epoch 2 for the keys that still hold epoch 1.
    const aSession = (await keysOf(a.device)).session_id;
    expect((await b.device.request("DELETE", DEVICES_API.one(aSession))).status).toBe(204);
    expect((await keysOf(b.device)).rotation_due).toBe(true);
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });

    const recovery = await recoveryOf(b.device);
    if (!recovery) throw new Error("the rotation lost the recovery code");
    expect(recovery.anchor_epoch).toBe(1);
    expect(recovery.wraps.map((w) => [w.epoch, w.sender_key_id])).toEqual([
      [1, a.held().keyId],
      [2, b.held().keyId],
    ]);
    expect(recovery.roster.find((r) => r.epoch === 2 && r.key_id === recovery.key_id)).toMatchObject({
      kind: "recovery",
      added_by_key_id: b.held().keyId,
    });
    expect((await keysOf(b.device)).holders.sort()).toEqual([b.held().keyId, recovery.key_id].sort());

    const c = await signIn();
    await c.unlock(code);
    expect(await c.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect([...c.held().epochs.keys()].sort()).toEqual([1, 2]);
    expect((await keysOf(c.device)).wraps.map((w) => w.epoch)).toEqual([1, 2]);
  });

  it("a rotation that leaves the recovery key out is refused with 409 key_recovery_missing", async () => {
    const { a, user } = await accountWithCode("Mis");
    const own = a.held().keyId;
    const publicKey = (await keysOf(a.device)).roster.find((r) => r.key_id === own)?.public_key ?? "";
    const body = {
      epoch: 2,
      expected: 1,
      reason: "rotation",
      wraps: [{ epoch: 2, recipient_key_id: own, sender_key_id: own, mode: "auth", enc: b64(32), ciphertext: b64(48) }],
      roster: [{ epoch: 2, key_id: own, public_key: publicKey, kind: "device", tag: b64(32) }],
    };
    expect(await a.device.post(KEYS_API.epochs, body)).toMatchObject({
      status: 409,
      body: { error: { code: "key_recovery_missing", field: "wraps", message: expect.any(String) } },
    });
    const epochs = await server.db.selectFrom("key_epochs").select("epoch").where("user_id", "=", user.id).execute();
    expect(epochs.map((row) => Number(row.epoch))).toEqual([1]);
  });
});

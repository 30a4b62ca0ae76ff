/**
 * Issue 42, point 11: a device signed in by password and never approved (it holds no key) must not sign out every
 * device that holds the account's key and then Start over, erasing the recovery code. Signing out the last key
 * holders needs a device that holds the key; Start over is refused while a recovery code is set (the code is the
 * way back). Real devices' keys, made by the crypto library, over HTTP.
 */
import { DEVICES_API, type DevicesResponse, SETTINGS_API, type SignedOutOthersResponse } from "@daysync/shared";
import { makeRecoveryCode } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KeyDevice, keyedAccount, keysOf, recoveryOf } from "../../testing/key-devices.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { KEY_HOLDER_ABSENT_MS } from "./keys.service.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const account = (name: string) => keyedAccount(server, name);

const sessionOf = async (device: KeyDevice) => (await keysOf(device.device)).session_id;
const sessionIds = async (device: KeyDevice) =>
  (await device.device.get<DevicesResponse>(DEVICES_API.list)).body.devices.map((d) => d.id).sort();
const keyHolderNeeded = { error: { code: "key_holder_needed", message: expect.stringContaining("Only a device that can read") } };

describe("signing out the devices that hold the key", () => {
  it("a locked device is refused 403 key_holder_needed for Sign out all other devices and for the last key holder", async () => {
    const { keyed, signIn } = await account("Lou");
    const locked = await signIn();
    const before = await sessionIds(keyed);

    const all = await locked.device.post(DEVICES_API.signOutOthers);
    expect([all.status, all.body]).toEqual([403, keyHolderNeeded]);
    const one = await locked.device.request("DELETE", DEVICES_API.one(await sessionOf(keyed)));
    expect([one.status, one.body]).toEqual([403, keyHolderNeeded]);
    expect(await sessionIds(keyed)).toEqual(before);
    expect((await keysOf(keyed.device)).holders).toEqual([keyed.held().keyId]);
  });

  it("a locked device may sign out a key holder while another still holds the key, never the last one", async () => {
    const { keyed, signIn } = await account("Mia");
    const code = await makeRecoveryCode();
    await keyed.makeCode(code);
    // A second key holder: a device unlocked with the recovery code.
    const second = await signIn();
    await second.unlock(code);
    expect((await keysOf(keyed.device)).other_devices_with_current_key).toBe(1);
    const locked = await signIn();
    expect((await locked.device.request("DELETE", DEVICES_API.one(await sessionOf(second)))).status).toBe(204);
    expect((await locked.device.request("DELETE", DEVICES_API.one(await sessionOf(keyed)))).status).toBe(403);
  });

  it("a device that holds the key may sign out every other device", async () => {
    const { keyed, signIn } = await account("Kai");
    const locked = await signIn();
    const res = await keyed.device.post<SignedOutOthersResponse>(DEVICES_API.signOutOthers);
    expect([res.status, res.body]).toEqual([200, { signed_out: 1 }]);
    expect(await sessionIds(keyed)).toEqual([await sessionOf(keyed)]);
    expect((await locked.device.get(DEVICES_API.list)).status).toBe(401);
  });
});

/** PUT /api/me/password from that device, signing the others out unless `keep` (the Settings page's checkbox). */
const changePassword = (device: KeyDevice, password: string, keep = false) =>
  device.device.request("PUT", SETTINGS_API.password, {
    current_password: "correct horse",
    password,
    confirm_password: password,
    keep_other_devices: keep,
  });

describe("a password change that signs the other devices out", () => {
  it("from a locked device is refused 403 key_holder_needed, changes nothing, and Start over stays refused", async () => {
    const { keyed, signIn } = await account("Ada");
    const locked = await signIn();
    const before = await sessionIds(keyed);

    const res = await changePassword(locked, "new horse 42");
    expect([res.status, res.body]).toEqual([403, keyHolderNeeded]);
    expect(await sessionIds(keyed)).toEqual(before);
    expect((await keysOf(keyed.device)).holders).toEqual([keyed.held().keyId]);
    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    // Refused whole: the old password is still the current one (a changed one would answer 400 here).
    expect((await changePassword(locked, "new horse 43")).status).toBe(403);

    // Keeping the other devices signed in, the locked device may change the password alone.
    const kept = await changePassword(locked, "new horse 44", true);
    expect([kept.status, kept.body]).toEqual([200, { signed_out: 0 }]);
    expect(await sessionIds(keyed)).toEqual(before);
  });

  it("from a device that holds the key signs every other device out", async () => {
    const { keyed, signIn } = await account("Bea");
    const locked = await signIn();
    const res = await changePassword(keyed, "new horse 42");
    expect([res.status, res.body]).toEqual([200, { signed_out: 1 }]);
    expect(await sessionIds(keyed)).toEqual([await sessionOf(keyed)]);
    expect((await locked.device.get(DEVICES_API.list)).status).toBe(401);
  });
});

describe("Start over from a locked device", () => {
  it("is refused 403 key_recovery_code_set while the recovery code is set, even with no key holder left; the code still unlocks", async () => {
    const { keyed, signIn } = await account("Rex");
    const code = await makeRecoveryCode();
    await keyed.makeCode(code);
    const locked = await signIn();
    // The key holder is gone (it signed itself out): nobody holds the current epoch.
    expect((await keyed.device.request("DELETE", DEVICES_API.one(await sessionOf(keyed)))).status).toBe(204);
    expect((await keysOf(locked.device)).other_devices_with_current_key).toBe(0);

    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_recovery_code_set" });
    expect(await recoveryOf(locked.device)).not.toBeNull();
    expect((await keysOf(locked.device)).epoch).toBe(1);

    // The way back: the code opens epoch 1 (and the rotation due since the holder left follows).
    await locked.unlock(code);
    expect(await locked.keys.sync()).toMatchObject({ state: "ready" });
  });

  it("is refused while a device holds the key, and allowed once none does and no recovery code is set", async () => {
    const { keyed, signIn } = await account("Sam");
    const locked = await signIn();
    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    expect((await keyed.device.request("DELETE", DEVICES_API.one(await sessionOf(keyed)))).status).toBe(204);
    expect(await locked.keys.startOver()).toMatchObject({ ok: true });
    expect((await keysOf(locked.device)).epoch).toBe(2);
  });

  // Last in this file: it moves the server's clock a week ahead.
  it("from the only device left is allowed at once when the device holding the key was not seen for 7 days, never sooner", async () => {
    const { keyed, signIn } = await account("Dot");
    const locked = await signIn();
    // Whoever knows the password, while the device that holds the key was seen within the week: refused.
    server.clock.advance(KEY_HOLDER_ABSENT_MS - 60 * 60_000);
    expect(await locked.keys.startOver()).toEqual({ ok: false, code: "key_epoch_in_use" });
    expect((await keysOf(locked.device)).other_devices_with_current_key).toBe(1);
    server.clock.advance(2 * 60 * 60_000);
    expect((await keysOf(locked.device)).other_devices_with_current_key).toBe(0);
    expect(await locked.keys.startOver()).toMatchObject({ ok: true });
    expect((await keysOf(locked.device)).epoch).toBe(2);
    // The device that held the key, back after the week, holds an epoch that is no longer the current one.
    expect((await keysOf(keyed.device)).holders).not.toContain(keyed.held().keyId);
  });
});

/**
 * Removing a device rotates the account's key (docs/protocol/encryption.md, "Rotation and revocation"), end to end: real devices' keys made with the
 * crypto library, AccountKeys as the web app and the CLI run it, over HTTP against a real server. After device C is
 * signed out, the epoch a remaining device makes is wrapped only for the devices that remain, and nothing C holds
 * opens it.
 */
import { API, DEVICES_API, type DevicesResponse, KEYS_API, type KeysState, keysStateSchema, responseSchemas } from "@daysync/shared";
import {
  AccountKeys,
  deriveEpochKeys,
  exportPublicKey,
  type HeldKeys,
  type KeyStorage,
  memoryKeyStorage,
  openEpochKey,
  rosterTag,
  UndecryptableError,
  wrapEpochKey,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

function accountKeys(device: Device, userId: string) {
  const storage = memoryKeyStorage(userId);
  const keys = new AccountKeys(userId, storage, {
    state: async () => keysStateSchema.parse((await device.get(KEYS_API.keys)).body),
    setDeviceKey: async (publicKey) => {
      expect((await device.request("PUT", KEYS_API.device, { public_key: publicKey })).status).toBe(200);
    },
    createEpoch: async (body) => {
      const res = await device.post(KEYS_API.epochs, body);
      if (res.status === 201) return { ok: true, state: keysStateSchema.parse(res.body) };
      return { ok: false, code: responseSchemas.error.parse(res.body).error.code };
    },
  });
  return { keys, storage };
}

const state = async (device: Device) => (await device.get<KeysState>(KEYS_API.keys)).body;

/**
 * What an approval by A hands to a locked device (docs/protocol/encryption.md, "Approving a device"): A opens its own wrap of the epoch, wraps
 * the key for the device in auth mode and tags its roster row; the device, once the person confirmed the check code,
 * opens that wrap with A's public key and keeps the epoch. The wrap and row are written straight to the tables here:
 * the approval routes are tested on their own, this test is about what happens after a removal.
 */
async function approve(userId: string, from: { device: Device; held: HeldKeys }, to: KeyStorage & { held?: HeldKeys }, epoch: number) {
  const recipient = held(to);
  const own = (await state(from.device)).wraps.find((wrap) => wrap.epoch === epoch);
  if (!own) throw new Error("the approver holds no wrap of the epoch");
  const place = { userId, epoch };
  const epochKey = await openEpochKey(own, place, from.held.pair, { mode: "auth", senderPublicKey: from.held.pair.publicKey });
  const wrap = await wrapEpochKey(epochKey, place, recipient.pair.publicKey, { mode: "auth", senderKeyPair: from.held.pair });
  const publicKey = await exportPublicKey(recipient.pair.publicKey);
  const row = { userId, epoch, keyId: recipient.keyId, publicKey, kind: "device" as const, addedByKeyId: from.held.keyId };
  const tag = await rosterTag((await deriveEpochKeys(epochKey, userId)).roster, row);
  const now = Date.now();
  await server.db
    .insertInto("key_wraps")
    .values({
      user_id: userId,
      epoch,
      recipient_key_id: recipient.keyId,
      sender_key_id: from.held.keyId,
      mode: "auth",
      ...wrap,
      created_at: now,
    })
    .execute();
  await server.db
    .insertInto("key_roster")
    .values({
      user_id: userId,
      epoch,
      key_id: recipient.keyId,
      public_key: publicKey,
      kind: "device",
      added_by_key_id: from.held.keyId,
      added_at: now,
      tag,
    })
    .execute();
  const opened = await openEpochKey(wrap, place, recipient.pair, { mode: "auth", senderPublicKey: from.held.pair.publicKey });
  await to.saveEpoch(epoch, opened);
}

const held = (storage: { held?: HeldKeys }): HeldKeys => {
  if (!storage.held) throw new Error("no keys yet");
  return storage.held;
};

describe("key rotation when a device is removed", () => {
  it("the next epoch is made by a remaining device, for the remaining devices only, and the removed one cannot open it", async () => {
    const { device: a, user, email } = await person(server, "Ann");
    const b = new Device(server.url);
    const c = new Device(server.url);
    await b.login(email);
    await c.login(email);
    const [keysA, keysB, keysC] = [accountKeys(a, user.id), accountKeys(b, user.id), accountKeys(c, user.id)];

    expect((await keysA.keys.sync()).state).toBe("ready");
    expect((await keysB.keys.sync()).state).toBe("locked");
    expect((await keysC.keys.sync()).state).toBe("locked");
    for (const to of [keysB, keysC]) await approve(user.id, { device: a, held: held(keysA.storage) }, to.storage, 1);
    expect((await keysB.keys.sync()).state).toBe("ready");
    expect((await state(b)).wraps.map((wrap) => wrap.epoch)).toEqual([1]);

    // C is signed out from A's Devices list: a rotation is due, and B hears it live.
    const live = await b.live();
    await live.waitFor((messages) => messages.some((m) => m.type === "ready"));
    const devices = (await a.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    const cSession = (await state(c)).session_id;
    expect(devices.some((device) => device.id === cSession)).toBe(true);
    expect((await a.request("DELETE", DEVICES_API.one(cSession))).status).toBe(204);
    await live.waitFor((messages) =>
      messages.some((m) => m.type === "event" && m.event.kind === "key.rotation_due" && m.event.epoch === 1),
    );
    live.close();
    const due = await state(a);
    expect(due.rotation_due).toBe(true);
    expect(due.holders.sort()).toEqual([held(keysA.storage).keyId, held(keysB.storage).keyId].sort());

    // A rotates: epoch 2 for A and B (B is in epoch 1's roster with A's tag), none for C.
    const afterA = await keysA.keys.sync();
    expect(afterA).toMatchObject({ state: "ready", epoch: 2 });
    const rotated = await state(a);
    expect(rotated.rotation_due).toBe(false);
    expect(rotated.holders.sort()).toEqual([held(keysA.storage).keyId, held(keysB.storage).keyId].sort());

    // B follows the chain: epoch 2 came from A, listed in epoch 1's roster, which B opened.
    const bState = await keysB.keys.sync();
    expect(bState).toMatchObject({ state: "ready", epoch: 2 });
    expect([...held(keysB.storage).epochs.keys()].sort()).toEqual([1, 2]);

    // Nothing C holds opens epoch 2: there is no wrap for its key, and its private key opens none of the others.
    const wraps = await server.db.selectFrom("key_wraps").selectAll().where("user_id", "=", user.id).where("epoch", "=", 2).execute();
    expect(wraps.map((wrap) => wrap.recipient_key_id)).not.toContain(held(keysC.storage).keyId);
    for (const wrap of wraps) {
      await expect(
        openEpochKey(wrap, { userId: user.id, epoch: 2 }, held(keysC.storage).pair, {
          mode: "auth",
          senderPublicKey: held(keysA.storage).pair.publicKey,
        }),
      ).rejects.toBeInstanceOf(UndecryptableError);
    }
  });

  it("a second device rotating at the same time gets the winner's epoch instead of making its own", async () => {
    const { device: a, user, email } = await person(server, "Bea");
    const b = new Device(server.url);
    const c = new Device(server.url);
    await b.login(email);
    await c.login(email);
    const [keysA, keysB, keysC] = [accountKeys(a, user.id), accountKeys(b, user.id), accountKeys(c, user.id)];
    await keysA.keys.sync();
    await keysB.keys.sync();
    await keysC.keys.sync();
    for (const to of [keysB, keysC]) await approve(user.id, { device: a, held: held(keysA.storage) }, to.storage, 1);
    expect((await c.post(API.logout)).status).toBe(204);

    const [afterA, afterB] = await Promise.all([keysA.keys.sync(), keysB.keys.sync()]);
    expect(afterA).toMatchObject({ state: "ready", epoch: 2 });
    expect(afterB).toMatchObject({ state: "ready", epoch: 2 });
    const epochs = await server.db.selectFrom("key_epochs").select(["epoch", "reason"]).where("user_id", "=", user.id).execute();
    expect(epochs.map((row) => [Number(row.epoch), row.reason])).toEqual([
      [1, "first"],
      [2, "rotation"],
    ]);
  });

  it("signing out a device that never held the key starts no rotation", async () => {
    const { device: a, user, email } = await person(server, "Cid");
    const b = new Device(server.url);
    await b.login(email);
    await accountKeys(a, user.id).keys.sync();
    await accountKeys(b, user.id).keys.sync();
    expect((await b.post(API.logout)).status).toBe(204);
    expect((await state(a)).rotation_due).toBe(false);
  });
});

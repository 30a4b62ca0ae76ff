/**
 * The signed device list (docs/protocol/encryption.md, "Signed device list") against a hostile server: real devices'
 * key code over HTTP to a real test server, which appends what it likes (it checks no signature) or rewrites what it
 * serves (`keyDevice`'s `forgeList` and `forge`). Each attack is refused with the words the person sees.
 */
import {
  DEVICE_LIST_API,
  DEVICE_LIST_TEXT,
  DEVICES_API,
  type DeviceList,
  type DeviceListEntry,
  deviceListSchema,
  KEYS_API,
} from "@daysync/shared";
import {
  deriveRecoveryKeys,
  entryHash,
  exportPublicKey,
  generateDeviceKeyPair,
  keyId,
  type ListHead,
  makeEpochKey,
  makeRecoveryCode,
  makeSigningKey,
  signEntry,
  wrapEpochKey,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { type KeyDevice, keyDevice, keysOf, threeKeyedDevices } from "../../testing/key-devices.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/**
 * An account whose devices A, B and C all hold epoch 1 and are in the list: A made the list with epoch 1 and, with the
 * recovery code, added the recovery key; B and C unlocked with that code, and the recovery key signed each in.
 */
async function listedDevices(name: string) {
  const { a, b, c, user, code, forgeList, forgeKeys } = await threeKeyedDevices(server, name);
  await a.keys.sync();
  const list = await listOf(a.device);
  const recoveryKeyId = (await keysOf(a.device)).recovery?.key_id;
  expect(list.entries.map((e) => [e.kind, e.key_id, e.signer_key_id])).toEqual([
    ["add", a.held().keyId, a.held().keyId],
    ["add", recoveryKeyId, a.held().keyId],
    ["add", b.held().keyId, recoveryKeyId],
    ["add", c.held().keyId, recoveryKeyId],
  ]);
  for (const d of [b, c]) expect(await d.keys.sync()).toMatchObject({ state: "ready", epoch: 1 });
  return { a, b, c, user, code, forgeList, forgeKeys };
}

const listOf = async (device: Device) => deviceListSchema.parse((await device.get(DEVICE_LIST_API.list)).body);

/** Signs `removed` out from `by`'s Devices list; `by` signs the removal and makes the next epoch at once. */
async function removeFrom(by: KeyDevice, removed: KeyDevice) {
  const session = (await keysOf(removed.device)).session_id;
  await by.keys.noteRemoved([removed.held().keyId]);
  expect((await by.device.request("DELETE", DEVICES_API.one(session))).status).toBe(204);
  return by.keys.rotateNow({ removedKeyIds: [removed.held().keyId] });
}

/** The server appends an entry of its own making after the real head (it checks no signature, only the chain). */
async function serverAppends(device: Device, userId: string, make: (head: ListHead) => DeviceListEntry) {
  const last = (await listOf(device)).entries.at(-1);
  if (!last) throw new Error("empty list");
  const res = await device.post(DEVICE_LIST_API.append, { entry: make({ seq: last.seq, hash: entryHash(userId, last) }) });
  expect(res.status).toBe(201);
}

/** A key pair and signing key no device of the account holds: the server's own. */
async function strangerKeys() {
  const pair = await generateDeviceKeyPair();
  const signing = makeSigningKey();
  const member = { keyId: await keyId(pair.publicKey), publicKey: await exportPublicKey(pair.publicKey), signingKey: signing.publicKey };
  return { pair, signing, member };
}

describe("the signed device list against a hostile server", () => {
  it("adds a device with an entry no member signed: the list is refused, with the words shown", async () => {
    const { a, b, user } = await listedDevices("Intruder");
    const { signing, member } = await strangerKeys();
    // Signed by the server's own key in the name of device A.
    await serverAppends(a.device, user.id, (head) => signEntry(user.id, head, "add", member, { keyId: a.held().keyId, signing }));
    expect(await b.keys.sync()).toMatchObject({ state: "ready", listProblem: DEVICE_LIST_TEXT.broken });
  });

  it("brings a removed device back with its old key: refused", async () => {
    const { a, b, c, user } = await listedDevices("Comeback");
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect((await listOf(a.device)).entries.at(-1)).toMatchObject({ kind: "remove", key_id: c.held().keyId });
    // The removed device C, with the server, lists itself again with its old keys, signed with its old signing key.
    const cSigning = c.held().signing;
    if (!cSigning) throw new Error("C has no signing key");
    const cMember = { keyId: c.held().keyId, publicKey: await exportPublicKey(c.held().pair.publicKey), signingKey: cSigning.publicKey };
    await serverAppends(a.device, user.id, (head) =>
      signEntry(user.id, head, "add", cMember, { keyId: c.held().keyId, signing: cSigning }),
    );
    const status = await b.keys.sync();
    expect(status.state === "lost" ? undefined : status.listProblem).toBe(DEVICE_LIST_TEXT.broken);
  });

  it("hides a removal by serving the list from before it: refused, as it does not extend the head the device pinned", async () => {
    const { a, b, c, forgeList } = await listedDevices("Hidden");
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect(b.held().account?.listHead?.seq).toBe(4);
    forgeList.b = (list) => ({ ...list, entries: list.entries.filter((entry) => entry.kind !== "remove") });
    expect(await b.keys.sync()).toMatchObject({ listProblem: DEVICE_LIST_TEXT.notExtended });
  });

  it("hands over a rotation wrapped by a device another device removed: refused, the device does not take that key", async () => {
    const { a, b, c, user, forgeKeys } = await listedDevices("Forged");
    const cKey = c.held().keyId;
    const bKey = b.held().keyId;
    // A removes C and makes epoch 2; the server shows B instead an epoch 2 made by C, whose epoch 1 row is genuine.
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });
    const wrap = await wrapEpochKey(makeEpochKey(), { userId: user.id, epoch: 2 }, b.held().pair.publicKey, {
      mode: "auth",
      senderKeyPair: c.held().pair,
    });
    forgeKeys.b = (state) => ({
      ...state,
      wraps: [
        ...state.wraps.filter((w) => w.epoch !== 2),
        { epoch: 2, recipient_key_id: bKey, sender_key_id: cKey, mode: "auth", ...wrap, created_at: Date.now() },
      ],
    });
    const status = await b.keys.sync();
    expect(b.held().epochs.has(2)).toBe(false);
    expect(status).toMatchObject({ state: "locked", epoch: 2 });
  });

  it("swaps a new device's signing key for its own when a member adds it: the device sees it is not its key and says so", async () => {
    const { device, user, email } = await person(server, "Swapped");
    const { signing } = await strangerKeys();
    let bKey = "";
    // What A reads of the signing keys: B's replaced by the server's own.
    const swap = (list: DeviceList) => ({
      ...list,
      signing_keys: list.signing_keys.map((k) => (k.key_id === bKey ? { ...k, signing_key: signing.publicKey } : k)),
    });
    const a = keyDevice(device, user.id, { forgeList: swap });
    expect((await a.keys.sync()).state).toBe("ready");
    // A code saved without its recovery key in the list (as before the list knew recovery keys): B, unlocked with
    // it, is added by A, as a device approved by QR is.
    const code = await makeRecoveryCode();
    expect((await a.device.request("PUT", KEYS_API.recovery, await a.kit(code))).status).toBe(200);
    const fresh = new Device(server.url);
    await fresh.login(email);
    const b = keyDevice(fresh, user.id);
    await b.keys.sync();
    bKey = b.held().keyId;
    await b.unlock(code);
    await a.keys.sync();
    expect((await listOf(a.device)).entries.at(-1)).toMatchObject({ key_id: bKey, signing_key: signing.publicKey });
    expect(await b.keys.sync()).toMatchObject({ state: "ready", listProblem: DEVICE_LIST_TEXT.notOwnKey });
  });

  it("takes an append only after the head it names; bad entries are 400 with the field named", async () => {
    const { a, user } = await listedDevices("Appends");
    const { signing, member } = await strangerKeys();
    const stale = signEntry(user.id, undefined, "add", member, { keyId: member.keyId, signing });
    const res = await a.device.post(DEVICE_LIST_API.append, { entry: stale });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: "device_list_moved" } });
    const bad = await a.device.post(DEVICE_LIST_API.append, { entry: { ...stale, signature: "x" } });
    expect(bad.status).toBe(400);
  });

  it("signs a device in with the recovery key's name but not its key: refused, only the code can", async () => {
    const { a, b, user } = await listedDevices("Forger");
    const recoveryKeyId = (await keysOf(a.device)).recovery?.key_id ?? "";
    const { signing, member } = await strangerKeys();
    await serverAppends(a.device, user.id, (head) => signEntry(user.id, head, "add", member, { keyId: recoveryKeyId, signing }));
    expect(await b.keys.sync()).toMatchObject({ state: "ready", listProblem: DEVICE_LIST_TEXT.broken });
  });

  it("replacing the code takes the old recovery key out of the list: an old code the server kept signs no device in", async () => {
    const { a, b, user, code } = await listedDevices("Oldcode");
    const old = await deriveRecoveryKeys(code, user.id);
    const oldKeyId = await keyId(old.keyPair.publicKey);
    await a.makeCode(await makeRecoveryCode());
    const entries = (await listOf(a.device)).entries;
    expect(entries.find((e) => e.kind === "remove" && e.key_id === oldKeyId)).toMatchObject({ signer_key_id: a.held().keyId });
    expect(entries.at(-1)).toMatchObject({ kind: "add", key_id: (await keysOf(a.device)).recovery?.key_id });
    const { member } = await strangerKeys();
    await serverAppends(a.device, user.id, (head) => signEntry(user.id, head, "add", member, { keyId: oldKeyId, signing: old.signing }));
    expect(await b.keys.sync()).toMatchObject({ listProblem: DEVICE_LIST_TEXT.broken });
  });
});

describe("devices unlocked with the recovery code", () => {
  it("once no device that was listed is left, each one unlocked with the code takes the others' rotations", async () => {
    const { device, user, email } = await person(server, "Recovered");
    const a = keyDevice(device, user.id);
    expect((await a.keys.sync()).state).toBe("ready");
    const code = await makeRecoveryCode();
    await a.makeCode(code);
    const unlocked = async () => {
      const fresh = new Device(server.url);
      await fresh.login(email);
      const d = keyDevice(fresh, user.id);
      expect((await d.keys.sync()).state).toBe("locked");
      await d.unlock(code);
      return d;
    };
    // B unlocks and signs A out before A synced again (so A never added it): B's removal is signed and taken.
    const b = await unlocked();
    expect(await removeFrom(b, a)).toMatchObject({ state: "ready", epoch: 2 });
    const c = await unlocked();
    expect(await c.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
    expect(await c.keys.rotateNow()).toMatchObject({ state: "ready", epoch: 3 });
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 3 });
    expect(await b.keys.rotateNow()).toMatchObject({ state: "ready", epoch: 4 });
    expect(await c.keys.sync()).toMatchObject({ state: "ready", epoch: 4 });
  });
});

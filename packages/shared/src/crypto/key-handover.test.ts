import { describe, expect, it } from "vitest";
import type { KeysState, OwnWrapsInput, StoredKeyWrap, StoredRosterEntry } from "../keys.ts";
import type { PairingHandover } from "../pairing-keys.ts";
import { exportPublicKey, generateDeviceKeyPair, keyId } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import type { HeldKeys, KeyStorage } from "./held-keys.ts";
import { askingKey, makeHandover, receiveHandover, secretOfFragment, verifyAskingKey } from "./key-handover.ts";
import { makePairingSecret } from "./pairing-secret.ts";
import { rosterTag } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

const userId = "u_handover";
const requestId = "9f0c1e8a-0000-4000-8000-000000000001";

/** What a device keeps, in memory. */
function memoryStorage() {
  const kept: { keyId?: string; epochs: Map<number, Bytes> } = { epochs: new Map() };
  const storage: KeyStorage = {
    load: async () => undefined,
    saveDevice: async (id) => {
      kept.keyId = id;
      kept.epochs.clear();
    },
    saveEpoch: async (epoch, epochKey) => {
      kept.epochs.set(epoch, new Uint8Array(epochKey));
      return deriveEpochKeys(epochKey, userId);
    },
    generatePair: () => generateDeviceKeyPair(),
  };
  return { storage, kept };
}

/** The approving device after making epoch 1 for itself, and the key state the server answers it. */
async function approver() {
  const pair = await generateDeviceKeyPair();
  const id = await keyId(pair.publicKey);
  const epochKey = makeEpochKey();
  const keys = await deriveEpochKeys(epochKey, userId);
  const wrap = await wrapEpochKey(epochKey, { userId, epoch: 1 }, pair.publicKey, { mode: "auth", senderKeyPair: pair });
  const publicKey = await exportPublicKey(pair.publicKey);
  const row = { userId, epoch: 1, keyId: id, publicKey, kind: "device" as const, addedByKeyId: null };
  const roster: StoredRosterEntry = {
    epoch: 1,
    key_id: id,
    public_key: publicKey,
    kind: "device",
    added_by_key_id: null,
    added_at: 1,
    tag: await rosterTag(keys.roster, row),
  };
  const state: KeysState = {
    session_id: "s_a",
    key_id: id,
    epoch: 1,
    rotation_due: false,
    wraps: [{ epoch: 1, recipient_key_id: id, sender_key_id: id, mode: "auth", ...wrap, created_at: 1 }],
    roster: [roster],
    other_devices_with_current_key: 0,
    holders: [id],
  };
  const held: HeldKeys = { keyId: id, pair, epochs: new Map([[1, keys]]) };
  return { held, state, epochKey };
}

/** What the server answers the new device once the exchange moved the handover. */
function newDeviceState(a: KeysState, handover: PairingHandover): KeysState {
  const wraps: StoredKeyWrap[] = handover.wraps.map((w) => ({ ...w, sender_key_id: w.sender_key_id ?? null, created_at: 2 }));
  const row = { ...handover.roster, added_by_key_id: handover.roster.added_by_key_id ?? null, added_at: 2 };
  return { ...a, session_id: "s_b", key_id: handover.roster.key_id, wraps, roster: [...a.roster, row] };
}

describe("the QR pairing's key handover", () => {
  it("hands the approver's epoch to the asking key; the new device keeps it and its pair", async () => {
    const secret = makePairingSecret();
    const a = await approver();
    const { storage, kept } = memoryStorage();
    const asking = await askingKey(storage.generatePair, secret);
    expect(await verifyAskingKey(secret, asking.body)).toBe(true);

    const handover = await makeHandover({ userId, held: a.held, state: a.state, secret, requestId, publicKey: asking.body.public_key });
    expect(handover?.wraps.map((w) => [w.epoch, w.mode, w.sender_key_id])).toEqual([[1, "psk", a.held.keyId]]);
    expect(handover?.roster).toMatchObject({ epoch: 1, public_key: asking.body.public_key, added_by_key_id: a.held.keyId });

    const state = newDeviceState(a.state, handover as PairingHandover);
    const resealed: OwnWrapsInput[] = [];
    const server = { state: async () => state, replaceOwnWraps: async (body: OwnWrapsInput) => resealed.push(body) };
    const outcome = await receiveHandover({ userId, storage, server, asking, secret, requestId });
    expect(outcome).toEqual({ ok: true, epochs: [1] });
    expect(kept.keyId).toBe(await keyId(asking.pair.publicKey));
    expect(kept.epochs.get(1)).toEqual(a.epochKey);
    // The epoch is sealed again by the device for itself, so it opens without the pairing's secret.
    const [own] = resealed[0]?.wraps ?? [];
    if (!own) throw new Error("nothing was sealed again");
    const reopened = await openEpochKey(own, { userId, epoch: 1 }, asking.pair, { mode: "auth", senderPublicKey: asking.pair.publicKey });
    expect(reopened).toEqual(a.epochKey);
  });

  it("a key swapped on the way fails the proof; so does another link's secret", async () => {
    const secret = makePairingSecret();
    const asking = await askingKey(() => generateDeviceKeyPair(), secret);
    const other = await exportPublicKey((await generateDeviceKeyPair()).publicKey);
    expect(await verifyAskingKey(secret, { ...asking.body, public_key: other })).toBe(false);
    expect(await verifyAskingKey(makePairingSecret(), asking.body)).toBe(false);
    expect(await verifyAskingKey(secret, { public_key: null, key_proof: null })).toBe(false);
  });

  it("a wrap swapped, or a roster row forged, keeps nothing", async () => {
    const secret = makePairingSecret();
    const a = await approver();
    const { storage, kept } = memoryStorage();
    const asking = await askingKey(storage.generatePair, secret);
    const handover = (await makeHandover({
      userId,
      held: a.held,
      state: a.state,
      secret,
      requestId,
      publicKey: asking.body.public_key,
    })) as PairingHandover;
    // The server wraps a key of its own with a psk it guessed.
    const forged = await wrapEpochKey(makeEpochKey(), { userId, epoch: 1 }, asking.pair.publicKey, {
      mode: "psk",
      psk: new Uint8Array(32),
      pskId: `daysync/v1/pair|${requestId}`,
    });
    const swapped = { ...handover, wraps: handover.wraps.map((w) => ({ ...w, ...forged })) };
    const receive = (h: PairingHandover, id = requestId) =>
      receiveHandover({
        userId,
        storage,
        server: {
          state: async () => newDeviceState(a.state, h),
          replaceOwnWraps: async () => {
            throw new Error("nothing unverified is sealed again");
          },
        },
        asking,
        secret,
        requestId: id,
      });
    expect(await receive(swapped)).toEqual({ ok: false, reason: "not_verified" });
    expect(
      await receive({
        ...handover,
        roster: { ...handover.roster, tag: handover.roster.tag.replace(/^./, (c) => (c === "A" ? "B" : "A")) },
      }),
    ).toEqual({
      ok: false,
      reason: "not_verified",
    });
    // A wrap moved from another pairing (another row id) does not open either.
    expect(await receive(handover, "9f0c1e8a-0000-4000-8000-000000000002")).toEqual({ ok: false, reason: "not_verified" });
    expect(kept.epochs.size).toBe(0);
  });

  it("reads the secret from a link's fragment", () => {
    const secret = makePairingSecret();
    expect(secretOfFragment(`#k=${secret}`)).toBe(secret);
    expect(secretOfFragment("")).toBeNull();
    expect(secretOfFragment("#k=short")).toBeNull();
  });
});

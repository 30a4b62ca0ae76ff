/**
 * The key handover of a QR pairing (docs/protocol/encryption.md, "QR pairing handover"), both ends, the same in the browser and the CLI.
 * The device that shows the QR code makes the link's secret `s` (`makePairingSecret`) and puts it in the fragment
 * `#k=<s>`; the device that reads the code takes it from there. Either way:
 * - the new device makes its key pair before asking and sends `askingKey`'s public key and proof with its request;
 * - the approving device checks the proof (`verifyAskingKey`; a failure means Deny and `HANDOVER_TEXT.keyNotVerified`)
 *   and sends `makeHandover`'s wraps and roster row with Approve;
 * - the new device, signed in, keeps its pair and opens the handover (`receiveHandover`); AccountKeys then finds both.
 */

import type { KeysState, OwnWrapsInput } from "../keys.ts";
import type { PairingHandover } from "../pairing-keys.ts";
import { rosterRowOf, trustedSender } from "./chain-rule.ts";
import { exportPublicKey, importPublicKey, keyId } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { deriveEpochKeys } from "./epoch-keys.ts";
import type { HeldKeys, KeyStorage, KeysServer } from "./held-keys.ts";
import type { CryptoKeyPair } from "./key-types.ts";
import { derivePairingKeys, keyProof, pairingPskId, verifyKeyProof } from "./pairing-secret.ts";
import { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
import { openEpochKey, wrapEpochKey } from "./wraps.ts";

/** The fragment of a QR link that carries the secret: `#k=<s>`. */
export const pairingFragment = (secret: string) => `#k=${secret}`;

/** The secret in a link's fragment (`#k=<s>` or `k=<s>`), or null when there is none. */
export function secretOfFragment(fragment: string): string | null {
  const secret = new URLSearchParams(fragment.replace(/^#/, "")).get("k");
  return secret && /^[A-Za-z0-9_-]{43}$/.test(secret) ? secret : null;
}

/** The new device's side before it asks: a pair it keeps in memory until it is signed in, and what it sends. */
export interface AskingKey {
  pair: CryptoKeyPair;
  body: { public_key: string; key_proof: string };
}

export async function askingKey(generatePair: KeyStorage["generatePair"], secret: string): Promise<AskingKey> {
  const { mac } = await derivePairingKeys(secret);
  const pair = await generatePair();
  const publicKey = await exportPublicKey(pair.publicKey);
  return { pair, body: { public_key: publicKey, key_proof: await keyProof(mac, publicKey) } };
}

/** The approving device: whether the asking device proved it holds the secret of the code this device read or showed. */
export async function verifyAskingKey(secret: string, asked: { public_key: string | null; key_proof: string | null }): Promise<boolean> {
  if (!asked.public_key || !asked.key_proof) return false;
  const { mac } = await derivePairingKeys(secret);
  return verifyKeyProof(mac, asked.public_key, asked.key_proof);
}

/**
 * The approving device's handover: each epoch it can open its own wrap of (auth mode, chain rule), wrapped in `psk`
 * mode for the asking key, and that key's roster row of the current epoch. Undefined when this device does not hold
 * the current epoch itself: it then approves without a handover and the new device is locked.
 */
export async function makeHandover(input: {
  userId: string;
  held: HeldKeys;
  state: KeysState;
  secret: string;
  requestId: string;
  publicKey: string;
}): Promise<PairingHandover | undefined> {
  const { userId, held, state, secret, requestId, publicKey } = input;
  const current = state.epoch === null ? undefined : held.epochs.get(state.epoch);
  if (state.epoch === null || !current) return undefined;
  const { psk } = await derivePairingKeys(secret);
  const recipient = await importPublicKey(publicKey);
  const recipientKeyId = await keyId(publicKey);
  const pskId = pairingPskId(requestId);
  const wraps: PairingHandover["wraps"] = [];
  for (const own of state.wraps) {
    const sender = await trustedSender(userId, held, own, state.roster);
    if (!sender) continue;
    const place = { userId, epoch: own.epoch };
    let epochKey: Bytes;
    try {
      epochKey = await openEpochKey(own, place, held.pair, { mode: "auth", senderPublicKey: sender });
    } catch {
      continue;
    }
    const wrap = await wrapEpochKey(epochKey, place, recipient, { mode: "psk", psk, pskId });
    epochKey.fill(0);
    wraps.push({ epoch: own.epoch, recipient_key_id: recipientKeyId, sender_key_id: held.keyId, mode: "psk", ...wrap });
  }
  if (!wraps.some((wrap) => wrap.epoch === state.epoch)) return undefined;
  const row: RosterRow = { userId, epoch: state.epoch, keyId: recipientKeyId, publicKey, kind: "device", addedByKeyId: held.keyId };
  return {
    wraps,
    roster: {
      epoch: row.epoch,
      key_id: row.keyId,
      public_key: row.publicKey,
      kind: "device",
      added_by_key_id: row.addedByKeyId,
      tag: await rosterTag(current.roster, row),
    },
  };
}

export type HandoverOutcome =
  /** Every psk wrap opened and the key's roster row checked: the epochs are kept. */
  | { ok: true; epochs: number[] }
  /** Nothing was handed over (approved without, or the key was refused): locked, waiting for an approval. */
  | { ok: false; reason: "none" }
  /** A wrap or the roster row did not check out (the server swapped it): nothing of it is kept. */
  | { ok: false; reason: "not_verified" };

/**
 * The new device, signed in: keeps its pair for this account, then opens the psk wraps of its pairing and checks its
 * roster row of the current epoch under that epoch's key. All or nothing: one wrap that fails keeps none.
 */
export async function receiveHandover(input: {
  userId: string;
  storage: KeyStorage;
  server: Pick<KeysServer, "state"> & { replaceOwnWraps(body: OwnWrapsInput): Promise<unknown> };
  asking: AskingKey;
  secret: string;
  requestId: string;
}): Promise<HandoverOutcome> {
  const { userId, storage, server, asking, secret, requestId } = input;
  const ownKeyId = await keyId(asking.pair.publicKey);
  await storage.saveDevice(ownKeyId, asking.pair);
  const state = await server.state();
  const pairingWraps = state.wraps.filter((wrap) => wrap.mode === "psk");
  if (state.key_id !== ownKeyId || state.epoch === null || pairingWraps.length === 0) return { ok: false, reason: "none" };
  const { psk } = await derivePairingKeys(secret);
  const opened = new Map<number, Bytes>();
  try {
    for (const wrap of pairingWraps) {
      const place = { userId, epoch: wrap.epoch };
      opened.set(wrap.epoch, await openEpochKey(wrap, place, asking.pair, { mode: "psk", psk, pskId: pairingPskId(requestId) }));
    }
  } catch {
    return { ok: false, reason: "not_verified" };
  }
  const currentKey = opened.get(state.epoch);
  const entry = state.roster.find((row) => row.epoch === state.epoch && row.key_id === ownKeyId);
  if (!currentKey || !entry || entry.public_key !== asking.body.public_key || entry.kind !== "device") {
    return { ok: false, reason: "not_verified" };
  }
  const current = await deriveEpochKeys(currentKey, userId);
  if (!(await verifyRosterRow(current.roster, rosterRowOf(userId, entry), entry.tag))) return { ok: false, reason: "not_verified" };
  // The psk wraps open only with the pairing's secret, gone after this: each epoch is sealed again for this device.
  const own: OwnWrapsInput["wraps"] = [];
  for (const [epoch, epochKey] of opened) {
    const wrap = await wrapEpochKey(epochKey, { userId, epoch }, asking.pair.publicKey, { mode: "auth", senderKeyPair: asking.pair });
    own.push({ epoch, ...wrap });
  }
  await server.replaceOwnWraps({ wraps: own });
  for (const [epoch, epochKey] of opened) {
    await storage.saveEpoch(epoch, epochKey);
    epochKey.fill(0);
  }
  return { ok: true, epochs: [...opened.keys()] };
}

/**
 * The chain rule (docs/protocol/encryption.md, "Keys"; "Rotation and revocation"): whose wrap of an epoch key a device
 * takes, by the roster of an epoch it already holds.
 */
import type { StoredKeyWrap, StoredRosterEntry } from "../keys.ts";
import { importPublicKey } from "./device-key.ts";
import type { HeldKeys } from "./held-keys.ts";
import { type RosterRow, verifyRosterRow } from "./roster.ts";

export function rosterRowOf(userId: string, entry: StoredRosterEntry): RosterRow {
  return {
    userId,
    epoch: entry.epoch,
    keyId: entry.key_id,
    publicKey: entry.public_key,
    kind: entry.kind,
    addedByKeyId: entry.added_by_key_id,
  };
}

/**
 * The chain rule for a wrap already on this device's list: the sender's public key when the wrap is this device's
 * own, or sealed by a key listed with a valid tag in the roster of an epoch this device holds; undefined otherwise.
 */
export async function trustedSender(userId: string, held: HeldKeys, wrap: StoredKeyWrap, roster: StoredRosterEntry[]) {
  if (wrap.mode !== "auth" || !wrap.sender_key_id) return undefined;
  if (wrap.sender_key_id === held.keyId) return held.pair.publicKey;
  for (const [epoch, keys] of held.epochs) {
    const entry = roster.find((row) => row.epoch === epoch && row.key_id === wrap.sender_key_id && row.kind === "device");
    if (entry && (await verifyRosterRow(keys.roster, rosterRowOf(userId, entry), entry.tag))) return importPublicKey(entry.public_key);
  }
  return undefined;
}

/**
 * The chain rule for taking a new epoch from a rotation (docs/protocol/encryption.md, "Rotation and revocation"): a
 * wrap of epoch n+1 is taken from this device itself, or from a device key listed with a valid tag in the roster of
 * epoch n, which this device must hold; never from the sender of any other held or retired epoch, nor from a key this
 * device removed.
 */
export async function nextEpochSender(userId: string, held: HeldKeys, wrap: StoredKeyWrap, roster: StoredRosterEntry[]) {
  if (wrap.mode !== "auth" || !wrap.sender_key_id) return undefined;
  if (wrap.sender_key_id === held.keyId) return held.pair.publicKey;
  if (held.account?.removedKeyIds.includes(wrap.sender_key_id)) return undefined;
  const previous = held.epochs.get(wrap.epoch - 1);
  if (!previous) return undefined;
  const entry = roster.find((row) => row.epoch === wrap.epoch - 1 && row.key_id === wrap.sender_key_id && row.kind === "device");
  if (entry && (await verifyRosterRow(previous.roster, rosterRowOf(userId, entry), entry.tag))) return importPublicKey(entry.public_key);
  return undefined;
}

/**
 * Checking and extending the signed device list (docs/protocol/encryption.md, "Signed device list"). Each device has
 * an Ed25519 signing key besides its X25519 key; an entry adds or removes one device and is signed by a device that
 * is a member at that point (the first entry by its own subject), chained by the SHA-256 of the entry before. A
 * device verifies the whole chain, then that it extends the head it pinned last time.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { type DeviceListEntry, deviceListEntryEncoding, deviceListHashInput } from "../device-list.ts";
import { DEVICE_LIST_TEXT } from "../ui-text.ts";
import { type Bytes, fromBase64Url, toBase64Url, utf8 } from "./encoding.ts";

/** A device's signing key: the 32-byte Ed25519 secret (kept with its other keys) and its public key, base64url. */
export interface SigningKey {
  secretKey: Bytes;
  publicKey: string;
}

export function makeSigningKey(): SigningKey {
  const secretKey = new Uint8Array(ed25519.utils.randomSecretKey());
  return { secretKey, publicKey: toBase64Url(ed25519.getPublicKey(secretKey)) };
}

export function signingKeyOf(secretKey: Bytes): SigningKey {
  return { secretKey, publicKey: toBase64Url(ed25519.getPublicKey(secretKey)) };
}

/** The head a device pins in its encryption state: the last entry's number and hash. */
export interface ListHead {
  seq: number;
  hash: string;
}

export interface ListMember {
  keyId: string;
  publicKey: string;
  signingKey: string;
}

/** A verified list: who is in it now, who was removed, and its head (undefined while empty). */
export interface VerifiedList {
  members: Map<string, ListMember>;
  removed: Set<string>;
  head?: ListHead;
}

/** Refused: the sentence to show the person. */
export class DeviceListError extends Error {}

export function entryHash(userId: string, entry: DeviceListEntry): string {
  return toBase64Url(sha256(utf8(deviceListHashInput(userId, entry))));
}

const keyIdOfRaw = (publicKey: string) => toBase64Url(sha256(fromBase64Url(publicKey)).subarray(0, 16));

/** The entry after `head`, signed by `signer` (for the first entry, `signer` is the subject itself). */
export function signEntry(
  userId: string,
  head: ListHead | undefined,
  kind: DeviceListEntry["kind"],
  subject: ListMember,
  signer: { keyId: string; signing: SigningKey },
): DeviceListEntry {
  const unsigned = {
    seq: head ? head.seq + 1 : 0,
    prev: head ? head.hash : null,
    kind,
    key_id: subject.keyId,
    public_key: subject.publicKey,
    signing_key: subject.signingKey,
    signer_key_id: signer.keyId,
  };
  const signature = ed25519.sign(utf8(deviceListEntryEncoding(userId, unsigned)), signer.signing.secretKey);
  return { ...unsigned, signature: toBase64Url(signature) };
}

function validSignature(userId: string, entry: DeviceListEntry, signingKey: string): boolean {
  try {
    return ed25519.verify(fromBase64Url(entry.signature), utf8(deviceListEntryEncoding(userId, entry)), fromBase64Url(signingKey));
  } catch {
    return false;
  }
}

/**
 * The whole chain from its first entry, each entry checked against the members before it; then, when this device
 * pinned a head, that the chain still holds that entry at that place. Throws DeviceListError with the words to show.
 */
export function verifyDeviceList(userId: string, entries: DeviceListEntry[], pinned?: ListHead): VerifiedList {
  const members = new Map<string, ListMember>();
  const removed = new Set<string>();
  const removedKeys = new Set<string>();
  let head: ListHead | undefined;
  for (const [index, entry] of entries.entries()) {
    if (entry.seq !== index || entry.prev !== (head?.hash ?? null)) throw new DeviceListError(DEVICE_LIST_TEXT.broken);
    if (keyIdOfRaw(entry.public_key) !== entry.key_id) throw new DeviceListError(DEVICE_LIST_TEXT.broken);
    const signingKey = index === 0 ? entry.signing_key : members.get(entry.signer_key_id)?.signingKey;
    if (index === 0 && (entry.kind !== "add" || entry.signer_key_id !== entry.key_id)) throw new DeviceListError(DEVICE_LIST_TEXT.broken);
    if (!signingKey || !validSignature(userId, entry, signingKey)) throw new DeviceListError(DEVICE_LIST_TEXT.broken);
    if (entry.kind === "add") {
      if (removed.has(entry.key_id) || removedKeys.has(entry.public_key) || removedKeys.has(entry.signing_key))
        throw new DeviceListError(DEVICE_LIST_TEXT.readded);
      if (members.has(entry.key_id)) throw new DeviceListError(DEVICE_LIST_TEXT.broken);
      members.set(entry.key_id, { keyId: entry.key_id, publicKey: entry.public_key, signingKey: entry.signing_key });
    } else {
      const member = members.get(entry.key_id);
      if (!member || member.publicKey !== entry.public_key || member.signingKey !== entry.signing_key)
        throw new DeviceListError(DEVICE_LIST_TEXT.broken);
      members.delete(entry.key_id);
      removed.add(entry.key_id);
      removedKeys.add(entry.public_key).add(entry.signing_key);
    }
    head = { seq: entry.seq, hash: entryHash(userId, entry) };
  }
  if (pinned) {
    const at = entries[pinned.seq];
    if (!at || entryHash(userId, at) !== pinned.hash) throw new DeviceListError(DEVICE_LIST_TEXT.notExtended);
  }
  return { members, removed, ...(head ? { head } : {}) };
}

/**
 * A device's security code: three groups of four digits from SHA-256 of its two public keys, the same wherever it is
 * computed. Two devices showing the same code for a device agree on its keys.
 */
export function securityCode(member: Pick<ListMember, "publicKey" | "signingKey">): string {
  return digitsOf(sha256(utf8(`daysync/v1/security-code|${member.publicKey}|${member.signingKey}`)));
}

/** "1234 5678 9012": the first 8 bytes of a digest as a number, mod 10^12, in three groups (a discussion member's code too). */
export function digitsOf(digest: Uint8Array): string {
  let value = 0n;
  for (const byte of digest.subarray(0, 8)) value = (value << 8n) | BigInt(byte);
  const digits = (value % 10n ** 12n).toString().padStart(12, "0");
  return `${digits.slice(0, 4)} ${digits.slice(4, 8)} ${digits.slice(8)}`;
}

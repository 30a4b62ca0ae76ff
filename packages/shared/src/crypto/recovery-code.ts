/**
 * The recovery code (docs/protocol/encryption.md, "Recovery code"): 28 Crockford base32 characters in 7 groups of 4, "ABCD-EFGH-…".
 * The 140 bits they spell, most significant first, are 130 random bits then a 10-bit check: the first 10 bits of
 * SHA-256 of the 17 bytes that hold the 130 bits left-aligned (the last 6 bits zero). A typo is caught on the device
 * except with probability 2^-10. Reading accepts lower case, spaces and hyphens anywhere, I and L for 1, O for 0.
 *
 * From the same 17 bytes, HKDF-SHA256 with the user id as salt gives the 32-byte input of the recovery HPKE key pair
 * (info `daysync/v1/recovery-kem`, RFC 9180 DeriveKeyPair) and the anchor key (info `daysync/v1/recovery-anchor`,
 * AES-256-GCM) that seals the epoch key with associated data `daysync/v1/recovery-anchor|<user id>|<epoch>`, and
 * (info `daysync/v1/recovery-proof`, 32 bytes) the proof a locked device shows the server, which keeps only its SHA-256,
 * before it adds itself to the account's epochs.
 */

import { type SigningKey, signingKeyOf } from "./device-list.ts";
import { type Bytes, fromBase64Url, randomBytes, sha256, toBase64Url, utf8 } from "./encoding.ts";
import { EPOCH_KEY_LENGTH } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey, CryptoKeyPair } from "./key-types.ts";
import { hkdfAesKey, hkdfBytes, openBytes, sealBytes } from "./primitives.ts";
import { hpkeSuite } from "./suite.ts";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const LENGTH = 28;
const SECRET_BYTES = 17;

export class RecoveryCodeError extends Error {
  override name = "RecoveryCodeError";
  constructor(
    readonly reason: "length" | "character" | "check",
    message: string,
  ) {
    super(message);
  }
}

async function checkBits(secret: Bytes): Promise<bigint> {
  const digest = await sha256(secret);
  return BigInt(((digest[0] ?? 0) << 2) | ((digest[1] ?? 0) >> 6));
}

function secretToBigInt(secret: Bytes): bigint {
  return secret.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n) >> 6n;
}

function bigIntToSecret(bits: bigint): Bytes {
  const secret = new Uint8Array(SECRET_BYTES);
  let value = bits << 6n;
  for (let i = SECRET_BYTES - 1; i >= 0; i--) {
    secret[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return secret;
}

function format(value: bigint): string {
  let chars = "";
  for (let i = LENGTH - 1; i >= 0; i--) chars += ALPHABET[Number((value >> BigInt(5 * i)) & 31n)];
  return chars.match(/.{4}/g)?.join("-") ?? chars;
}

/** The code for 17 secret bytes (the last 6 bits are dropped); exported for fixed test vectors. */
export async function recoveryCodeFromSecret(secret: Bytes): Promise<string> {
  if (secret.length !== SECRET_BYTES) throw new TypeError(`A recovery secret is ${SECRET_BYTES} bytes`);
  const bits = secretToBigInt(secret);
  return format((bits << 10n) | (await checkBits(bigIntToSecret(bits))));
}

export function makeRecoveryCode(): Promise<string> {
  return recoveryCodeFromSecret(randomBytes(SECRET_BYTES));
}

async function readCode(text: string): Promise<{ code: string; secret: Bytes }> {
  const cleaned = text.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
  if (cleaned.length !== LENGTH) {
    throw new RecoveryCodeError("length", `A recovery code has ${LENGTH} letters and digits; this has ${cleaned.length}.`);
  }
  let value = 0n;
  for (const char of cleaned) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new RecoveryCodeError("character", `"${char}" is not in a recovery code.`);
    value = (value << 5n) | BigInt(digit);
  }
  const secret = bigIntToSecret(value >> 10n);
  if ((await checkBits(secret)) !== (value & 1023n)) {
    throw new RecoveryCodeError("check", "This recovery code has a typo: check it against the one you saved.");
  }
  return { code: format(value), secret };
}

/** The code as shown ("ABCD-EFGH-…") from what the person typed; RecoveryCodeError says what is wrong. */
export async function parseRecoveryCode(text: string): Promise<string> {
  return (await readCode(text)).code;
}

export interface RecoveryKeys {
  /** The recovery HPKE key pair: its public key goes in the roster as kind `recovery`. */
  keyPair: CryptoKeyPair;
  anchorKey: CryptoKey;
  /** 32 bytes; the server keeps their SHA-256 and lets only a device that shows them add itself with the code. */
  proof: Bytes;
  /** The recovery key's Ed25519 key: a member of the signed device list, it signs the addition of a device it unlocked. */
  signing: SigningKey;
}

export async function deriveRecoveryKeys(code: string, userId: string): Promise<RecoveryKeys> {
  const { secret } = await readCode(code);
  const salt = utf8(userId);
  const [ikm, anchorKey, proof, signing] = await Promise.all([
    hkdfBytes(secret, salt, utf8("daysync/v1/recovery-kem"), 32),
    hkdfAesKey(secret, salt, utf8("daysync/v1/recovery-anchor")),
    hkdfBytes(secret, salt, utf8("daysync/v1/recovery-proof"), 32),
    hkdfBytes(secret, salt, utf8("daysync/v1/recovery-signing"), 32),
  ]);
  return { keyPair: await hpkeSuite().kem.deriveKeyPair(ikm), anchorKey, proof, signing: signingKeyOf(signing) };
}

function anchorAad(userId: string, epoch: number): Bytes {
  return utf8(`daysync/v1/recovery-anchor|${userId}|${epoch}`);
}

/** The anchor the server keeps: the epoch key sealed under the anchor key, base64url(nonce ‖ ciphertext ‖ tag). */
export async function sealRecoveryAnchor(anchorKey: CryptoKey, place: { userId: string; epoch: number }, epochKey: Bytes): Promise<string> {
  if (epochKey.length !== EPOCH_KEY_LENGTH) throw new TypeError(`An epoch key is ${EPOCH_KEY_LENGTH} bytes`);
  return toBase64Url(await sealBytes(anchorKey, anchorAad(place.userId, place.epoch), epochKey));
}

export async function openRecoveryAnchor(anchorKey: CryptoKey, place: { userId: string; epoch: number }, anchor: string): Promise<Bytes> {
  const what = "The recovery anchor";
  let sealed: Bytes;
  try {
    sealed = fromBase64Url(anchor);
  } catch (cause) {
    throw new UndecryptableError(what, { cause });
  }
  const epochKey = await openBytes(anchorKey, anchorAad(place.userId, place.epoch), sealed, what);
  if (epochKey.length !== EPOCH_KEY_LENGTH) throw new UndecryptableError(what);
  return epochKey;
}

/**
 * The WebCrypto calls every module shares: HKDF-SHA256 into bytes or non-extractable keys, and AES-256-GCM sealing as
 * `nonce (12) ‖ ciphertext ‖ tag (16)` with a fresh random nonce. Opening failures become UndecryptableError.
 */

import { type Bytes, concatBytes, randomBytes } from "./encoding.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey } from "./key-types.ts";

export const NONCE_LENGTH = 12;
export const TAG_LENGTH = 16;
/** What sealing adds to a plaintext: the nonce in front and the tag behind. */
export const SEAL_OVERHEAD = NONCE_LENGTH + TAG_LENGTH;

function hkdfBase(ikm: Bytes): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits", "deriveKey"]);
}

function hkdfParams(salt: Bytes, info: Bytes) {
  return { name: "HKDF", hash: "SHA-256", salt, info };
}

export async function hkdfBytes(ikm: Bytes, salt: Bytes, info: Bytes, length: number): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.deriveBits(hkdfParams(salt, info), await hkdfBase(ikm), length * 8));
}

export async function hkdfAesKey(ikm: Bytes, salt: Bytes, info: Bytes): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(hkdfParams(salt, info), await hkdfBase(ikm), { name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
}

export async function hkdfHmacKey(ikm: Bytes, salt: Bytes, info: Bytes): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(hkdfParams(salt, info), await hkdfBase(ikm), { name: "HMAC", hash: "SHA-256", length: 256 }, false, [
    "sign",
    "verify",
  ]);
}

/** A raw 32-byte key (a file key) as a non-extractable AES-256-GCM key. */
export async function importAesKey(raw: Bytes): Promise<CryptoKey> {
  if (raw.length !== 32) throw new TypeError("An AES-256 key is 32 bytes");
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

export async function sealBytes(key: CryptoKey, aad: Bytes, plaintext: Bytes): Promise<Bytes> {
  return concatBytes(...(await sealApart(key, aad, plaintext)));
}

/** The nonce and `ciphertext ‖ tag` apart, for a caller that writes them out one after the other without joining them. */
export async function sealApart(key: CryptoKey, aad: Bytes, plaintext: Bytes): Promise<[nonce: Bytes, sealed: Bytes]> {
  const nonce = randomBytes(NONCE_LENGTH);
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: aad, tagLength: 128 }, key, plaintext);
  return [nonce, new Uint8Array(sealed)];
}

/** `what` names the thing in the error's message ("A sealed value", "File record 3"). */
export async function openBytes(key: CryptoKey, aad: Bytes, sealed: Bytes, what: string): Promise<Bytes> {
  if (sealed.length < SEAL_OVERHEAD) throw new UndecryptableError(what);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.subarray(0, NONCE_LENGTH), additionalData: aad, tagLength: 128 },
      key,
      sealed.subarray(NONCE_LENGTH),
    );
    return new Uint8Array(plain);
  } catch (cause) {
    throw new UndecryptableError(what, { cause });
  }
}

export async function hmac(key: CryptoKey, data: Bytes): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data));
}

/** HMAC verification through WebCrypto, which compares in constant time. */
export function hmacVerify(key: CryptoKey, data: Bytes, tag: Bytes): Promise<boolean> {
  return crypto.subtle.verify("HMAC", key, tag, data);
}

/**
 * A device's key pair (docs/protocol/encryption.md, "Keys"). The browser keeps the pair as CryptoKeys in IndexedDB with a
 * non-extractable private key; the CLI makes an extractable one once, stores it as PKCS#8 in keys.json and imports it
 * back non-extractable. Public keys travel as base64url of their 32 raw bytes; a key id is base64url of the first
 * 16 bytes of SHA-256 of those bytes.
 */

import { fromBase64Url, sha256, toBase64Url } from "./encoding.ts";
import type { CryptoKey, CryptoKeyPair } from "./key-types.ts";
import { DEVICE_KEY_ALGORITHM, PUBLIC_KEY_LENGTH } from "./suite.ts";

/** `extractable` only for the CLI, which must write the private key to keys.json. */
export async function generateDeviceKeyPair(options: { extractable?: boolean } = {}): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(DEVICE_KEY_ALGORITHM, options.extractable ?? false, ["deriveBits"])) as CryptoKeyPair;
}

export async function exportPublicKey(publicKey: CryptoKey): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.exportKey("raw", publicKey)));
}

export async function importPublicKey(publicKey: string): Promise<CryptoKey> {
  const raw = fromBase64Url(publicKey);
  if (raw.length !== PUBLIC_KEY_LENGTH) throw new TypeError(`A public key is ${PUBLIC_KEY_LENGTH} bytes`);
  return crypto.subtle.importKey("raw", raw, DEVICE_KEY_ALGORITHM, true, []);
}

/** For the CLI's keys.json: the private key as base64url PKCS#8 (needs an extractable pair) and the public key. */
export async function exportDeviceKeyPair(pair: CryptoKeyPair): Promise<{ privateKey: string; publicKey: string }> {
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return { privateKey: toBase64Url(pkcs8), publicKey: await exportPublicKey(pair.publicKey) };
}

/** The CLI's stored pair back as CryptoKeys, the private one non-extractable. */
export async function importDeviceKeyPair(stored: { privateKey: string; publicKey: string }): Promise<CryptoKeyPair> {
  const privateKey = await crypto.subtle.importKey("pkcs8", fromBase64Url(stored.privateKey), DEVICE_KEY_ALGORITHM, false, ["deriveBits"]);
  return { privateKey, publicKey: await importPublicKey(stored.publicKey) };
}

export async function keyId(publicKey: CryptoKey | string): Promise<string> {
  const raw = typeof publicKey === "string" ? fromBase64Url(publicKey) : new Uint8Array(await crypto.subtle.exportKey("raw", publicKey));
  return toBase64Url((await sha256(raw)).subarray(0, 16));
}

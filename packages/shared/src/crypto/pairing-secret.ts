/**
 * The QR link's secret (docs/protocol/encryption.md, "QR pairing handover"): 32 random bytes `s`, base64url in the fragment `#k=<s>`, never
 * sent to the server. HKDF-SHA256 (empty salt) gives the HPKE `psk` (info `daysync/v1/pair-psk`) for the handover's
 * wraps and the `mac` key (info `daysync/v1/pair-mac`) with which the new device proves its public key:
 * key_proof = HMAC-SHA256(mac, "daysync/v1/pair-proof|" ‖ raw public key).
 */
import { type Bytes, concatBytes, fromBase64Url, randomBytes, toBase64Url, utf8 } from "./encoding.ts";
import type { CryptoKey } from "./key-types.ts";
import { hkdfBytes, hkdfHmacKey, hmac, hmacVerify } from "./primitives.ts";

const SECRET_LENGTH = 32;

export function makePairingSecret(): string {
  return toBase64Url(randomBytes(SECRET_LENGTH));
}

/** TypeError for a fragment that is not a 32-byte base64url secret. */
export async function derivePairingKeys(secret: string): Promise<{ psk: Bytes; mac: CryptoKey }> {
  const s = fromBase64Url(secret);
  if (s.length !== SECRET_LENGTH) throw new TypeError(`A pairing secret is ${SECRET_LENGTH} bytes`);
  const salt = new Uint8Array(0);
  const [psk, mac] = await Promise.all([
    hkdfBytes(s, salt, utf8("daysync/v1/pair-psk"), 32),
    hkdfHmacKey(s, salt, utf8("daysync/v1/pair-mac")),
  ]);
  return { psk, mac };
}

/** The HPKE psk_id of a pairing's wraps. */
export function pairingPskId(pairingRowId: string | number): string {
  return `daysync/v1/pair|${pairingRowId}`;
}

function proofInput(publicKey: string): Bytes {
  return concatBytes(utf8("daysync/v1/pair-proof|"), fromBase64Url(publicKey));
}

export async function keyProof(mac: CryptoKey, publicKey: string): Promise<string> {
  return toBase64Url(await hmac(mac, proofInput(publicKey)));
}

/** False, never a throw, for a proof or key that is not even well formed. */
export async function verifyKeyProof(mac: CryptoKey, publicKey: string, proof: string): Promise<boolean> {
  try {
    return await hmacVerify(mac, proofInput(publicKey), fromBase64Url(proof));
  } catch {
    return false;
  }
}

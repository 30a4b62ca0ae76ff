/**
 * The one place that names the key-agreement suite (docs/protocol/encryption.md, "Primitives"): device keys are X25519 in WebCrypto, and
 * HPKE is DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM. The P-256 fallback of section 2 is not built yet;
 * it would be chosen here, with the public key naming its KEM.
 */
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "@hpke/core";

export const DEVICE_KEY_ALGORITHM = { name: "X25519" } as const;
export const PUBLIC_KEY_LENGTH = 32;

let suite: CipherSuite | undefined;

export function hpkeSuite(): CipherSuite {
  suite ??= new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  return suite;
}

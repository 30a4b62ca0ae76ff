/**
 * Epoch keys (docs/protocol/encryption.md, "Keys"): 32 random bytes per numbered epoch, and the three subkeys every device uses,
 * derived by HKDF-SHA256 with the user id as salt so two accounts' keys never coincide. The subkeys are
 * non-extractable; the raw epoch key is only held while it is wrapped for another device.
 */

import { type Bytes, randomBytes, utf8 } from "./encoding.ts";
import type { CryptoKey } from "./key-types.ts";
import { hkdfAesKey, hkdfHmacKey } from "./primitives.ts";

export const EPOCH_KEY_LENGTH = 32;

export interface EpochKeys {
  /** AES-256-GCM: text, file names, previews, push texts. */
  message: CryptoKey;
  /** AES-256-GCM: wraps each file's key. */
  fileKey: CryptoKey;
  /** HMAC-SHA256: roster row tags. */
  roster: CryptoKey;
}

export function makeEpochKey(): Bytes {
  return randomBytes(EPOCH_KEY_LENGTH);
}

export async function deriveEpochKeys(epochKey: Bytes, userId: string): Promise<EpochKeys> {
  if (epochKey.length !== EPOCH_KEY_LENGTH) throw new TypeError(`An epoch key is ${EPOCH_KEY_LENGTH} bytes`);
  const salt = utf8(userId);
  const [message, fileKey, roster] = await Promise.all([
    hkdfAesKey(epochKey, salt, utf8("daysync/v1/message")),
    hkdfAesKey(epochKey, salt, utf8("daysync/v1/file-key")),
    hkdfHmacKey(epochKey, salt, utf8("daysync/v1/roster")),
  ]);
  return { message, fileKey, roster };
}

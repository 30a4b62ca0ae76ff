/**
 * A file's records sealed and opened with Node's own AES-256-GCM (the same construction and layout as WebCrypto's,
 * docs/protocol/encryption.md, "File records"). Each record is done on the calling thread: WebCrypto in Node makes each one a job on the
 * thread pool and back, which halves what the CLI moves at 64 KiB a record (bench/upload-throughput.md). The key
 * stays the non-extractable CryptoKey the shared library opened; Node reads it through KeyObject.from.
 */
import { createCipheriv, createDecipheriv, KeyObject, randomFillSync } from "node:crypto";
import {
  asBytes,
  type Bytes,
  type CryptoKey,
  NONCE_LENGTH as NONCE,
  type RecordCipher,
  TAG_LENGTH as TAG,
  UndecryptableError,
} from "@daysync/shared/crypto";

const secrets = new WeakMap<CryptoKey, KeyObject>();

function secretOf(key: CryptoKey): KeyObject {
  let secret = secrets.get(key);
  if (!secret) {
    secret = KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
    secrets.set(key, secret);
  }
  return secret;
}

export const nodeRecords: RecordCipher = {
  seal(key, aad, plaintext, into) {
    const nonce = randomFillSync(into.subarray(0, NONCE));
    const cipher = createCipheriv("aes-256-gcm", secretOf(key), nonce, { authTagLength: TAG });
    cipher.setAAD(aad);
    into.set(cipher.update(plaintext), NONCE);
    cipher.final();
    into.set(cipher.getAuthTag(), NONCE + plaintext.length);
  },
  open(key, aad, sealed, what): Bytes {
    if (sealed.length < NONCE + TAG) throw new UndecryptableError(what);
    try {
      const decipher = createDecipheriv("aes-256-gcm", secretOf(key), sealed.subarray(0, NONCE), { authTagLength: TAG });
      decipher.setAAD(aad);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
      const plain = decipher.update(sealed.subarray(NONCE, sealed.length - TAG));
      decipher.final();
      return asBytes(plain);
    } catch (cause) {
      throw new UndecryptableError(what, { cause });
    }
  },
};

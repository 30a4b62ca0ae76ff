/**
 * Wraps (docs/protocol/encryption.md, "Keys", "QR pairing handover", "Approving a device" and "Recovery code"): the 32-byte epoch key sealed for one recipient public key with HPKE
 * (RFC 9180) single-shot, info `daysync/v1/epoch|<user id>|<epoch>|<recipient key id>`.
 * - `psk` mode, for the QR handover: both ends hold the psk derived from the link's secret (pairing-secret.ts).
 * - `auth` mode, device to device and to the recovery key: the opener names the sender's public key, so a wrap from
 *   any other key fails.
 * A wrap that does not open throws UndecryptableError.
 */

import { keyId } from "./device-key.ts";
import { type Bytes, fromBase64Url, toBase64Url, utf8 } from "./encoding.ts";
import { EPOCH_KEY_LENGTH } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey, CryptoKeyPair } from "./key-types.ts";
import { hpkeSuite } from "./suite.ts";

export interface Wrap {
  enc: string;
  ciphertext: string;
}

export interface WrapPlace {
  userId: string;
  epoch: number;
}

/** `pskId` as pairing-secret.ts builds it. */
export type WrapSender = { mode: "psk"; psk: Bytes; pskId: string } | { mode: "auth"; senderKeyPair: CryptoKeyPair };
export type WrapOpener = { mode: "psk"; psk: Bytes; pskId: string } | { mode: "auth"; senderPublicKey: CryptoKey };

export function wrapInfo(place: WrapPlace, recipientKeyId: string): string {
  return `daysync/v1/epoch|${place.userId}|${place.epoch}|${recipientKeyId}`;
}

function presharedKey(psk: Bytes, pskId: string) {
  return { key: psk, id: utf8(pskId) };
}

export function wrapEpochKey(epochKey: Bytes, place: WrapPlace, recipientPublicKey: CryptoKey, sender: WrapSender): Promise<Wrap> {
  return wrapKey(epochKey, (recipientKeyId) => wrapInfo(place, recipientKeyId), recipientPublicKey, sender);
}

/** The recipient's whole pair: its private key is non-extractable, so its public half cannot be derived from it. */
export function openEpochKey(wrap: Wrap, place: WrapPlace, recipientKeyPair: CryptoKeyPair, opener: WrapOpener): Promise<Bytes> {
  return openKey(wrap, (recipientKeyId) => wrapInfo(place, recipientKeyId), recipientKeyPair, opener, `The key for epoch ${place.epoch}`);
}

/** A 32-byte key sealed for one recipient, with the HPKE info `infoOf` gives for the recipient's key id (a room key: room-holding.ts). */
export async function wrapKey(
  key: Bytes,
  infoOf: (recipientKeyId: string) => string,
  recipientPublicKey: CryptoKey,
  sender: WrapSender,
): Promise<Wrap> {
  if (key.length !== EPOCH_KEY_LENGTH) throw new TypeError(`A wrapped key is ${EPOCH_KEY_LENGTH} bytes`);
  const info = utf8(infoOf(await keyId(recipientPublicKey)));
  const { enc, ct } = await hpkeSuite().seal(
    sender.mode === "psk"
      ? { recipientPublicKey, info, psk: presharedKey(sender.psk, sender.pskId) }
      : { recipientPublicKey, info, senderKey: sender.senderKeyPair },
    key,
  );
  return { enc: toBase64Url(new Uint8Array(enc)), ciphertext: toBase64Url(new Uint8Array(ct)) };
}

/** The 32-byte key of a wrap; `what` names it in the UndecryptableError when it does not open. */
export async function openKey(
  wrap: Wrap,
  infoOf: (recipientKeyId: string) => string,
  recipientKeyPair: CryptoKeyPair,
  opener: WrapOpener,
  what: string,
): Promise<Bytes> {
  let opened: ArrayBuffer;
  try {
    const info = utf8(infoOf(await keyId(recipientKeyPair.publicKey)));
    const enc = fromBase64Url(wrap.enc);
    const ciphertext = fromBase64Url(wrap.ciphertext);
    opened = await hpkeSuite().open(
      opener.mode === "psk"
        ? { recipientKey: recipientKeyPair, enc, info, psk: presharedKey(opener.psk, opener.pskId) }
        : { recipientKey: recipientKeyPair, enc, info, senderPublicKey: opener.senderPublicKey },
      ciphertext,
    );
  } catch (cause) {
    throw new UndecryptableError(what, { cause });
  }
  if (opened.byteLength !== EPOCH_KEY_LENGTH) throw new UndecryptableError(what);
  return new Uint8Array(opened);
}

/**
 * Sealed values (docs/protocol/encryption.md, "Sealed messages"): `v1.<epoch>.<base64url(nonce (12) ‖ ciphertext ‖ tag (16))>`, AES-256-GCM
 * under the epoch's message key (file keys: under its file-key key), with associated data that binds the value to
 * its place, so a value moved to another message, field, type, day, time, device or epoch fails to open:
 * `daysync/v1|<field>|<user id>|<space id>|<message id>|<type>|<date>|<time>|<sender session id>|<epoch>`.
 */
import { SEALED_VALUE_PATTERN } from "../sealed-messages.ts";
import { type Bytes, fromBase64Url, fromUtf8, randomBytes, toBase64Url, utf8 } from "./encoding.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey } from "./key-types.ts";
import { importAesKey, openBytes, SEAL_OVERHEAD, sealApart } from "./primitives.ts";

export type SealedField = "content" | "filename" | "preview" | "file-key" | "deletion";

/** Where a value belongs. `time` is the sender's `h:mm a`, exactly as the message row carries it. */
export interface SealedPlace {
  field: SealedField;
  userId: string;
  spaceId: string;
  messageId: string;
  type: string;
  date: string;
  time: string;
  senderSessionId: string;
  epoch: number;
}

export { SEALED_VALUE_PATTERN };

export function sealedValueAad(place: SealedPlace): Bytes {
  const { field, userId, spaceId, messageId, type, date, time, senderSessionId, epoch } = place;
  return utf8(`daysync/v1|${field}|${userId}|${spaceId}|${messageId}|${type}|${date}|${time}|${senderSessionId}|${epoch}`);
}

/** The envelope's epoch (to pick the key) and sealed bytes; UndecryptableError when it is not one. */
export function parseSealedValue(sealed: string): { epoch: number; bytes: Bytes } {
  const match = SEALED_VALUE_PATTERN.exec(sealed);
  if (!match?.[1] || !match[2]) throw new UndecryptableError("A value that is not a sealed value");
  try {
    const bytes = fromBase64Url(match[2]);
    if (bytes.length < SEAL_OVERHEAD) throw new TypeError("Too short");
    return { epoch: Number(match[1]), bytes };
  } catch (cause) {
    throw new UndecryptableError("A value that is not a sealed value", { cause });
  }
}

function sealAt(key: CryptoKey, place: SealedPlace, plaintext: Bytes): Promise<string> {
  return sealEnvelope(key, sealedValueAad(place), place.epoch, plaintext);
}

function openAt(key: CryptoKey, place: SealedPlace, sealed: string): Promise<Bytes> {
  return openEnvelope(key, sealedValueAad(place), place.epoch, sealed, place.field);
}

/**
 * `v1.<number>.<base64url(nonce ‖ ciphertext ‖ tag)>` under `key` with associated data `aad`: the envelope of every
 * sealed value, whatever the number counts (an account's epoch, a discussion's key generation: room-sealing.ts).
 */
export async function sealEnvelope(key: CryptoKey, aad: Bytes, number: number, plaintext: Bytes): Promise<string> {
  const [nonce, sealed] = await sealApart(key, aad, plaintext);
  // The 12-byte nonce is 16 characters with no bits left over, so the two parts encode apart exactly as joined,
  // and a message's seal allocates no joined copy (bench/HISTORY.md).
  return `v1.${number}.${toBase64Url(nonce)}${toBase64Url(sealed)}`;
}

/** Opens an envelope that must name `number`; `field` names it in the UndecryptableError. */
export async function openEnvelope(key: CryptoKey, aad: Bytes, number: number, sealed: string, field: string): Promise<Bytes> {
  const { epoch, bytes } = parseSealedValue(sealed);
  if (epoch !== number) throw new UndecryptableError(`A ${field} sealed under ${epoch}`);
  return openBytes(key, aad, bytes, `A sealed ${field}`);
}

/** Opened bytes as text; UndecryptableError when they are not UTF-8. */
export function textOf(bytes: Bytes, field: string): string {
  try {
    return fromUtf8(bytes);
  } catch (cause) {
    throw new UndecryptableError(`A sealed ${field}`, { cause });
  }
}

/** Seals text (content, filename, preview) under the epoch's message key. */
export function sealValue(messageKey: CryptoKey, place: SealedPlace, text: string): Promise<string> {
  return sealAt(messageKey, place, utf8(text));
}

export async function openValue(messageKey: CryptoKey, place: SealedPlace, sealed: string): Promise<string> {
  return textOf(await openAt(messageKey, place, sealed), place.field);
}

export const FILE_KEY_LENGTH = 32;

/** A fresh random key for one file's records. */
export function makeFileKey(): Bytes {
  return randomBytes(FILE_KEY_LENGTH);
}

/** Seals a file's raw key under the epoch's file-key key, as field `file-key`. */
export async function sealFileKey(fileKeyKey: CryptoKey, place: Omit<SealedPlace, "field">, fileKey: Bytes): Promise<string> {
  if (fileKey.length !== FILE_KEY_LENGTH) throw new TypeError(`A file key is ${FILE_KEY_LENGTH} bytes`);
  return sealAt(fileKeyKey, { ...place, field: "file-key" }, fileKey);
}

/** The file's key, ready for its records (non-extractable AES-256-GCM). */
export async function openFileKey(fileKeyKey: CryptoKey, place: Omit<SealedPlace, "field">, sealed: string): Promise<CryptoKey> {
  const raw = await openAt(fileKeyKey, { ...place, field: "file-key" }, sealed);
  if (raw.length !== FILE_KEY_LENGTH) throw new UndecryptableError("A sealed file-key");
  return importAesKey(raw);
}

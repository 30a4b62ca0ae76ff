/**
 * A discussion's keys (docs/protocol/encryption.md, "Encrypted discussions"). The room key is 32 random bytes per
 * generation 1, 2, …, made on a member's device: the creator's for generation 1, the rotating member's after each
 * departure. Its subkeys by HKDF-SHA256, salt `daysync/v1/room|<room id>|<generation>` (no two rooms or generations
 * share one): `daysync/v1/room/message` (AES-GCM: texts, file names, previews, push texts, the title, display names),
 * `daysync/v1/room/file-key` (AES-GCM: each file's key), `daysync/v1/room/name-tag` and `daysync/v1/room/roster` (HMAC).
 * Each member's key pair (X25519, RFC 9180 DeriveKeyPair from a 32-byte seed its account's devices share) receives
 * the room key; its code is what two people compare.
 */
import { displayNameKey } from "../discussions.ts";
import { exportPublicKey, keyId } from "./device-key.ts";
import { digitsOf } from "./device-list.ts";
import { type Bytes, randomBytes, sha256, toBase64Url, utf8 } from "./encoding.ts";
import { EPOCH_KEY_LENGTH } from "./epoch-keys.ts";
import type { CryptoKey, CryptoKeyPair } from "./key-types.ts";
import { hkdfAesKey, hkdfHmacKey, hmac } from "./primitives.ts";
import { hpkeSuite } from "./suite.ts";

export const ROOM_KEY_LENGTH = EPOCH_KEY_LENGTH;

/** A discussion's id as the server names it (a UUID): it is bound into every key and value, and holds no "|". */
const ROOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isRoomId(roomId: string): boolean {
  return ROOM_ID.test(roomId);
}

export function isGeneration(generation: number): boolean {
  return Number.isSafeInteger(generation) && generation >= 1;
}

/** One generation's subkeys, non-extractable, with the room and generation they belong to. */
export interface RoomKeys {
  roomId: string;
  generation: number;
  message: CryptoKey;
  fileKey: CryptoKey;
  nameTag: CryptoKey;
  roster: CryptoKey;
}

export function makeRoomKey(): Bytes {
  return randomBytes(ROOM_KEY_LENGTH);
}

export async function deriveRoomKeys(roomKey: Bytes, roomId: string, generation: number): Promise<RoomKeys> {
  if (roomKey.length !== ROOM_KEY_LENGTH) throw new TypeError(`A room key is ${ROOM_KEY_LENGTH} bytes`);
  if (!isRoomId(roomId) || !isGeneration(generation)) throw new TypeError("A room key belongs to a discussion id and a generation from 1");
  const salt = utf8(`daysync/v1/room|${roomId}|${generation}`);
  const [message, fileKey, nameTag, roster] = await Promise.all([
    hkdfAesKey(roomKey, salt, utf8("daysync/v1/room/message")),
    hkdfAesKey(roomKey, salt, utf8("daysync/v1/room/file-key")),
    hkdfHmacKey(roomKey, salt, utf8("daysync/v1/room/name-tag")),
    hkdfHmacKey(roomKey, salt, utf8("daysync/v1/room/roster")),
  ]);
  return { roomId, generation, message, fileKey, nameTag, roster };
}

/**
 * The name tag the server compares to keep display names unique in a discussion without reading them: HMAC-SHA256
 * under the generation's name-tag key of `daysync/v1/room-name|` and the name as `displayNameKey` folds it (the
 * server's rule today), so "Cleo" and "ＣＬＥＯ" get the same tag.
 */
export async function nameTag(keys: RoomKeys, displayName: string): Promise<string> {
  return toBase64Url(await hmac(keys.nameTag, utf8(`daysync/v1/room-name|${displayNameKey(displayName)}`)));
}

/** A member's key pair in one discussion, its public key (base64url of the 32 raw bytes) and key id. */
export interface MemberKey {
  pair: CryptoKeyPair;
  publicKey: string;
  keyId: string;
}

/** The seed a member's key pair comes from: made once per membership, sealed for the account's devices (room-own.ts). */
export function makeMemberSeed(): Bytes {
  return randomBytes(32);
}

export async function memberKeyOf(seed: Bytes): Promise<MemberKey> {
  if (seed.length !== 32) throw new TypeError("A member seed is 32 bytes");
  const pair = await hpkeSuite().kem.deriveKeyPair(seed);
  const publicKey = await exportPublicKey(pair.publicKey);
  return { pair, publicKey, keyId: await keyId(publicKey) };
}

/**
 * A member's security code in one discussion: "1234 5678 9012" from SHA-256 of
 * `daysync/v1/room-member-code|<room id>|<member public key>`. Two people who see the same code for a member agree on
 * the key the room key is wrapped for.
 */
export async function memberSecurityCode(roomId: string, publicKey: string): Promise<string> {
  return digitsOf(await sha256(utf8(`daysync/v1/room-member-code|${roomId}|${publicKey}`)));
}

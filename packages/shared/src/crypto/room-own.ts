/**
 * A member's devices share its membership through the account's own key (docs/protocol/encryption.md, "Encrypted
 * discussions", own devices): the member seed and each room key are sealed under the account epoch's file-key key, as
 * `v1.<account epoch>.<…>` with associated data `daysync/v1/room-own|<user id>|<room id>|<what>|<generation>|<account epoch>`
 * (generation 0 for the seed). Every device of the account that holds the epoch opens them; no other account can.
 */
import type { Bytes } from "./encoding.ts";
import { utf8 } from "./encoding.ts";
import type { EpochKeys } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { ROOM_KEY_LENGTH } from "./room-key.ts";
import { openEnvelope, sealEnvelope } from "./sealed-value.ts";

export interface OwnPlace {
  userId: string;
  accountEpoch: number;
  roomId: string;
  what: "member-seed" | "room-key";
  /** The room key's generation; 0 for the member seed. */
  generation: number;
}

function ownAad(place: OwnPlace): Bytes {
  const { userId, roomId, what, generation, accountEpoch } = place;
  return utf8(`daysync/v1/room-own|${userId}|${roomId}|${what}|${generation}|${accountEpoch}`);
}

export function sealForOwnDevices(account: EpochKeys, place: OwnPlace, secret: Bytes): Promise<string> {
  if (secret.length !== ROOM_KEY_LENGTH) throw new TypeError(`A ${place.what} is ${ROOM_KEY_LENGTH} bytes`);
  return sealEnvelope(account.fileKey, ownAad(place), place.accountEpoch, secret);
}

/** The seed or room key; UndecryptableError when it does not open at this place. */
export async function openFromOwnDevices(account: EpochKeys, place: OwnPlace, sealed: string): Promise<Bytes> {
  const secret = await openEnvelope(account.fileKey, ownAad(place), place.accountEpoch, sealed, place.what);
  if (secret.length !== ROOM_KEY_LENGTH) throw new UndecryptableError(`A sealed ${place.what}`);
  return secret;
}

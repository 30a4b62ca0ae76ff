/**
 * The share link and QR code of an encrypted discussion carry its room key in the fragment, which no request sends:
 * `…/discussions/join/<public id>#room=<room id>&g=<generation>&k=<base64url room key>`. The page that opens it reads
 * the fragment, removes it from the address bar (`addressWithoutFragment` with `history.replaceState`) and checks that
 * the discussion the server shows is the one the key was made for (`keyForRoom`).
 */
import { type Bytes, fromBase64Url, toBase64Url } from "./encoding.ts";
import { RoomError } from "./room-errors.ts";
import { isGeneration, isRoomId, ROOM_KEY_LENGTH } from "./room-key.ts";

export interface RoomLinkKey {
  roomId: string;
  generation: number;
  roomKey: Bytes;
}

export function roomFragment(link: RoomLinkKey): string {
  if (!isRoomId(link.roomId) || !isGeneration(link.generation) || link.roomKey.length !== ROOM_KEY_LENGTH) {
    throw new TypeError("A room link names a discussion id, a generation from 1 and a 32-byte key");
  }
  return `#room=${link.roomId}&g=${link.generation}&k=${toBase64Url(link.roomKey)}`;
}

/** The key a link carries (a whole address, or its fragment with or without "#"); RoomError "linkDamaged" otherwise. */
export function parseRoomLink(address: string): RoomLinkKey {
  const hash = address.indexOf("#");
  const fragment = hash === -1 ? address : address.slice(hash + 1);
  const parts = fragment.split("&").map((part) => part.split("="));
  const names = parts.map(([name]) => name).join(",");
  const value = (name: string) => parts.find(([n]) => n === name)?.[1] ?? "";
  const roomId = value("room");
  const generationText = value("g");
  const generation = /^[1-9][0-9]{0,9}$/.test(generationText) ? Number(generationText) : 0;
  let roomKey: Bytes | undefined;
  try {
    roomKey = fromBase64Url(value("k"));
  } catch {
    roomKey = undefined;
  }
  if (names !== "room,g,k" || parts.some((part) => part.length !== 2) || !isRoomId(roomId) || !isGeneration(generation)) {
    throw new RoomError("linkDamaged");
  }
  if (roomKey?.length !== ROOM_KEY_LENGTH) throw new RoomError("linkDamaged");
  return { roomId, generation, roomKey };
}

/** The link's key, only for the discussion the server showed; RoomError "linkOtherRoom" for any other. */
export function keyForRoom(link: RoomLinkKey, roomId: string): RoomLinkKey {
  if (link.roomId !== roomId) throw new RoomError("linkOtherRoom");
  return link;
}

/** The address with its fragment removed, for `history.replaceState` once the key is read. */
export function addressWithoutFragment(address: string): string {
  const hash = address.indexOf("#");
  return hash === -1 ? address : address.slice(0, hash);
}

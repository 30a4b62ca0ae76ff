/**
 * What one device holds of one encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): its
 * membership's key, the generations it opened with their verified member lists, the highest generation it holds
 * (never lowered: an older one offered later is refused), and who it saw leave. From it: the discussion's start (creator, link), the room key
 * wrapped for a member's key, and the sender a message is sealed as.
 */

import { importPublicKey } from "./device-key.ts";
import type { Bytes } from "./encoding.ts";
import { RoomError } from "./room-errors.ts";
import { deriveRoomKeys, type MemberKey, makeRoomKey, nameTag, type RoomKeys } from "./room-key.ts";
import type { RoomLinkKey } from "./room-link.ts";
import { type Admission, type RoomRoster, type TaggedMember, tagMember, verifyRoster } from "./room-members.ts";
import type { RoomSender } from "./room-sealing.ts";
import { openKey, wrapKey } from "./wraps.ts";

export interface RoomHolding {
  roomId: string;
  self: MemberKey;
  generations: Map<number, RoomKeys>;
  /** The raw room keys, to wrap for a member this device admits and to seal for the account's other devices. */
  roomKeys: Map<number, Bytes>;
  rosters: Map<number, RoomRoster>;
  highest: number;
  /** Member key ids this device saw leave or be removed. */
  departed: Set<string>;
}

/** A room key wrapped for one member's key: HPKE `auth` mode from the sender member's key pair. */
export interface RoomKeyWrap {
  generation: number;
  recipientKeyId: string;
  senderKeyId: string;
  enc: string;
  ciphertext: string;
}

/** HPKE info of a room key's wrap: `daysync/v1/room-key|<room id>|<generation>|<recipient key id>`. */
const wrapInfo = (roomId: string, generation: number) => (recipientKeyId: string) =>
  `daysync/v1/room-key|${roomId}|${generation}|${recipientKeyId}`;

export async function wrapRoomKey(
  roomKey: Bytes,
  place: { roomId: string; generation: number },
  recipient: { keyId: string; publicKey: string },
  sender: MemberKey,
): Promise<RoomKeyWrap> {
  const recipientKey = await importPublicKey(recipient.publicKey);
  const wrap = await wrapKey(roomKey, wrapInfo(place.roomId, place.generation), recipientKey, { mode: "auth", senderKeyPair: sender.pair });
  return { generation: place.generation, recipientKeyId: recipient.keyId, senderKeyId: sender.keyId, ...wrap };
}

/** The room key of a wrap for `self` that `senderPublicKey` made; UndecryptableError from any other sender or place. */
export async function openRoomKeyWrap(wrap: RoomKeyWrap, roomId: string, self: MemberKey, senderPublicKey: string): Promise<Bytes> {
  const opener = { mode: "auth" as const, senderPublicKey: await importPublicKey(senderPublicKey) };
  return openKey(wrap, wrapInfo(roomId, wrap.generation), self.pair, opener, `The room key of generation ${wrap.generation}`);
}

export function emptyHolding(roomId: string, self: MemberKey): RoomHolding {
  return { roomId, self, generations: new Map(), roomKeys: new Map(), rosters: new Map(), highest: 0, departed: new Set() };
}

/**
 * Adds a generation this device opened, with its entries as the server lists them: RoomError "notAdmitted" for any
 * the server added, "keyNotVerified" for a list that does not name this device (its own entry withheld).
 */
export async function hold(
  holding: RoomHolding,
  generation: number,
  roomKey: Bytes,
  entries: readonly TaggedMember[],
): Promise<RoomRoster> {
  const keys = await deriveRoomKeys(roomKey, holding.roomId, generation);
  const roster = await verifyRoster(keys, entries);
  if (roster.get(holding.self.keyId)?.publicKey !== holding.self.publicKey) throw new RoomError("keyNotVerified");
  holding.generations.set(generation, keys);
  holding.roomKeys.set(generation, roomKey);
  holding.rosters.set(keys.generation, roster);
  holding.highest = Math.max(holding.highest, keys.generation);
  return roster;
}

/** An older generation handed over with the current one (admission): its keys, to open what was sealed under it. */
export async function holdOlder(holding: RoomHolding, generation: number, roomKey: Bytes): Promise<void> {
  holding.generations.set(generation, await deriveRoomKeys(roomKey, holding.roomId, generation));
  holding.roomKeys.set(generation, roomKey);
}

async function ownEntry(keys: RoomKeys, self: MemberKey, name: string, admission: Admission): Promise<TaggedMember> {
  const addedBy = admission === "creator" ? null : self.keyId;
  const member = { keyId: self.keyId, publicKey: self.publicKey, addedBy, admission, admissionId: "" };
  return tagMember(keys, { ...member, nameTag: await nameTag(keys, name) });
}

/** A new discussion on the creator's device: generation 1's key and the creator's entry, to post with it. */
export async function createRoom(roomId: string, self: MemberKey, name: string) {
  const roomKey = makeRoomKey();
  const keys = await deriveRoomKeys(roomKey, roomId, 1);
  const entry = await ownEntry(keys, self, name, "creator");
  const holding = emptyHolding(roomId, self);
  await hold(holding, 1, roomKey, [entry]);
  return { entry, holding };
}

/**
 * Joining by a link's key (holding it is the admission): the joiner's own entry for the link's generation, to post,
 * and its holding once `entries` (the generation's list as the server has it) verify and hold that entry.
 */
export async function joinByLink(link: RoomLinkKey, self: MemberKey, name: string) {
  const keys = await deriveRoomKeys(link.roomKey, link.roomId, link.generation);
  const entry = await ownEntry(keys, self, name, "link");
  const holdWith = async (entries: readonly TaggedMember[]) => {
    const holding = emptyHolding(link.roomId, self);
    await hold(holding, link.generation, link.roomKey, entries);
    return holding;
  };
  return { entry, holdWith };
}

/**
 * What this device seals as: the highest generation it holds, unless the server names an older one as current
 * (RoomError "olderKey") or someone listed in it left and no next generation came yet (RoomError "waitingForNewKey":
 * the one who left still holds that key).
 */
export function roomSender(holding: RoomHolding, serverGeneration: number): RoomSender {
  if (serverGeneration < holding.highest) throw new RoomError("olderKey");
  const keys = holding.generations.get(holding.highest);
  const roster = holding.rosters.get(holding.highest);
  if (!keys || !roster || serverGeneration > holding.highest) throw new RoomError("waitingForNewKey");
  if ([...holding.departed].some((keyId) => roster.has(keyId))) throw new RoomError("waitingForNewKey");
  return { keys, memberKeyId: holding.self.keyId };
}

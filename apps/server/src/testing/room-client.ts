/**
 * A device's side of an encrypted discussion for the server's tests: the shared crypto core's values turned into the
 * API's bodies and back, and the calls a client makes. What is sealed for the account's own devices is opaque to the
 * server, so it is a value of the right shape here.
 */
import { randomBytes } from "node:crypto";
import { ROOMS_API, type RoomState } from "@daysync/shared";
import {
  createRoom,
  deriveRoomKeys,
  entryBody,
  joinByLink,
  type MemberKey,
  makeMemberSeed,
  memberKeyOf,
  namePlace,
  type RoomHolding,
  type RoomKeys,
  sealRoomValue,
  taggedAt,
  wrapBody,
  wrapOf,
} from "@daysync/shared/crypto";

/**
 * What the helpers need of a device: posting JSON and reading the answer. A test's `Device` is one; so is the sync
 * bench's member (bench/sync/discussion.ts), which must not load the test server.
 */
export interface Poster {
  post<T>(pathname: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export const newMemberKey = (): Promise<MemberKey> => memberKeyOf(makeMemberSeed());

/** A value sealed for the account's own devices (room-own.ts), as the server sees one. */
export const ownValue = (epoch = 1) => `v1.${epoch}.${randomBytes(60).toString("base64url")}`;

export const sealName = (keys: RoomKeys, keyId: string, name: string) => sealRoomValue(keys, namePlace(keyId), name);

export { entryBody, taggedAt as entriesAt, wrapBody, wrapOf };

/** Creates an encrypted discussion through the API: the creator's holding and the room as the server answers it. */
export async function createRoomThroughApi(device: Poster, name: string, title: string) {
  const self = await newMemberKey();
  const id = crypto.randomUUID();
  const { entry, holding } = await createRoom(id, self, name);
  const keys = await deriveRoomKeys(roomKeyAt(holding, 1), id, 1);
  const sealedTitle = await sealRoomValue(
    keys,
    { field: "title", messageId: "", type: "", date: "", time: "", senderKeyId: self.keyId },
    title,
  );
  const body = { id, sealed_title: sealedTitle, entry: await entryBody(keys, entry, name), own: [{ generation: 0, value: ownValue() }] };
  const res = await device.post<RoomState>(ROOMS_API.create, body);
  return { res, holding, body };
}

/** The raw room key of a generation a device holds. */
export function roomKeyAt(holding: RoomHolding, generation: number) {
  const key = holding.roomKeys.get(generation);
  if (!key) throw new Error(`No room key of generation ${generation} on this device`);
  return key;
}

/** The room's current keys on a device. */
export const currentKeys = (holding: RoomHolding): RoomKeys => holding.generations.get(holding.highest) as RoomKeys;

/** Joins with the creator's current key, as a link gives it: the answer, and the joiner's holding once it verified. */
export async function linkJoinThroughApi(device: Poster, publicId: string, creator: RoomHolding, name: string) {
  const self = await newMemberKey();
  const link = { roomId: creator.roomId, generation: creator.highest, roomKey: roomKeyAt(creator, creator.highest) };
  const { entry, holdWith } = await joinByLink(link, self, name);
  const own = [{ generation: 0, value: ownValue() }];
  const body = { generation: link.generation, entry: await entryBody(currentKeys(creator), entry, name), own };
  const res = await device.post<RoomState>(ROOMS_API.joinByLink(publicId), body);
  return { res, holding: res.status === 201 ? await holdWith(taggedAt(res.body, link.generation)) : undefined };
}

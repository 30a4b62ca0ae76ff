/**
 * A leave seen in an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): this device makes
 * the next generation for those who stay, with their names sealed under it (the first device's rotation wins).
 */
import { ROOMS_API, type RoomState, roomResponseSchemas } from "@daysync/shared";
import {
  deriveRoomKeys,
  entryBody,
  type MemberKey,
  makeRotation,
  namePlace,
  openRoomKeyWrap,
  openRoomValue,
  type RoomHolding,
  type RoomKeys,
  type RoomKeyWrap,
  wrapBody,
} from "@daysync/shared/crypto";
import { ApiError, api } from "../api-client.ts";
import { entriesOf } from "./room-state.ts";

/** Someone listed in the current generation left: this device makes the next one. True when the room moved on. */
export async function rotateIfSomeoneLeft(holding: RoomHolding, state: RoomState): Promise<boolean> {
  const roster = holding.rosters.get(holding.highest);
  if (!roster || state.current_generation !== holding.highest || ![...holding.departed].some((k) => roster.has(k))) return false;
  const keys = holding.generations.get(holding.highest) as RoomKeys;
  const names = new Map<string, string>();
  for (const e of entriesOf(state, holding.highest)) {
    if (holding.departed.has(e.key_id)) continue;
    names.set(e.key_id, await openRoomValue(keys, namePlace(e.key_id), e.sealed_name));
  }
  const { rotation, keep } = await makeRotation(holding, names);
  const next = await nextKeys(holding.roomId, rotation.generation, rotation.wraps, holding.self);
  const entries = await Promise.all(rotation.roster.map((e) => entryBody(next, e, names.get(e.keyId) as string)));
  const body = { generation: rotation.generation, sender_key_id: holding.self.keyId, entries, wraps: rotation.wraps.map(wrapBody) };
  try {
    await api.post(ROOMS_API.generations(holding.roomId), body, roomResponseSchemas.room);
  } catch (error) {
    // Another member's device rotated first: its generation is taken at the next look.
    if (error instanceof ApiError && error.status === 409) return true;
    throw error;
  }
  await keep();
  return true;
}

/** The keys of a generation this device just wrapped for itself, to seal the names of the new list under. */
async function nextKeys(roomId: string, generation: number, wraps: RoomKeyWrap[], self: MemberKey): Promise<RoomKeys> {
  const own = wraps.find((w) => w.recipientKeyId === self.keyId) as RoomKeyWrap;
  return deriveRoomKeys(await openRoomKeyWrap(own, roomId, self, self.publicKey), roomId, generation);
}

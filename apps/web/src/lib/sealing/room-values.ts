/**
 * A room's title and its members' display names, sealed under a generation's keys (docs/protocol/encryption.md,
 * "Encrypted discussions"), opened with what this device holds: the page's room view, and a push's notification.
 */
import { epochOfSealedValue, type RoomState } from "@daysync/shared";
import {
  memberSecurityCode,
  namePlace,
  openRoomValue,
  type RoomHolding,
  type RoomKeys,
  type RoomPlace,
  roomFragment,
  sealRoomValue,
} from "@daysync/shared/crypto";
import { entriesOf } from "./room-state.ts";

/** The title shown while its key is not held here. */
export const LOCKED_TITLE = "Encrypted discussion";

/** Where a title is sealed: bound to the room and the member who sealed it, no message. */
export const titlePlace = (senderKeyId: string): RoomPlace => ({
  field: "title",
  messageId: "",
  type: "",
  date: "",
  time: "",
  senderKeyId,
});

/** A member's display name sealed under `keys` (field `name`, sender the member). */
export const sealName = (keys: RoomKeys, keyId: string, name: string) => sealRoomValue(keys, namePlace(keyId), name);

/** The title sealed by `senderKeyId` under `keys`. */
export const sealTitle = (keys: RoomKeys, senderKeyId: string, title: string) => sealRoomValue(keys, titlePlace(senderKeyId), title);

/** The title, sealed by its creator or a rename under some generation, by one of that generation's members. */
export async function openTitle(state: RoomState, holding: RoomHolding): Promise<string | undefined> {
  const generation = epochOfSealedValue(state.sealed_title);
  const keys = holding.generations.get(generation);
  if (!keys) return undefined;
  for (const e of entriesOf(state, generation)) {
    const title = await openRoomValue(keys, titlePlace(e.key_id), state.sealed_title).catch(() => undefined);
    if (title !== undefined) return title;
  }
  return undefined;
}

/** Display names by member id and by member key id, each from the member's latest entry this device holds. */
export async function openNames(state: RoomState, holding: RoomHolding | undefined) {
  const names = new Map<string, string>();
  const namesByKey = new Map<string, string>();
  const generations = [...state.generations].sort((a, b) => a.generation - b.generation);
  for (const g of generations) {
    const keys = holding?.generations.get(g.generation);
    if (!keys) continue;
    for (const e of g.entries) {
      const name = await openRoomValue(keys, namePlace(e.key_id), e.sealed_name).catch(() => undefined);
      if (name === undefined) continue;
      names.set(e.member_id, name);
      namesByKey.set(e.key_id, name);
    }
  }
  return { names, namesByKey };
}

/** What a page shows of one encrypted discussion, as this device opened it. */
export interface RoomView {
  encrypted: true;
  roomId: string;
  state: RoomState;
  /** Undefined while this device holds no key of it (or was refused one: `problem`). */
  holding: RoomHolding | undefined;
  /** The title opened, undefined while its generation is not held. */
  title: string | undefined;
  /** Display names by member id, opened from each member's latest entry this device holds. */
  names: ReadonlyMap<string, string>;
  /** Display names by member key id, for a message's sender. */
  namesByKey: ReadonlyMap<string, string>;
  /** Each member's security code, by member id (their key in the newest generation that lists them). */
  codes: ReadonlyMap<string, string>;
  /** The share link's fragment, made from the current generation this device holds. */
  fragment: string | undefined;
  /** Why this device does not read or send here, in the core's words. */
  problem: string | undefined;
}

/** What a page shows of a room as this device holds it: title, names, security codes, the share link's fragment. */
export async function roomView(state: RoomState, holding: RoomHolding | undefined, problem: string | undefined): Promise<RoomView> {
  const { names, namesByKey } = await openNames(state, holding);
  const codes = new Map<string, string>();
  for (const g of [...state.generations].sort((a, b) => a.generation - b.generation)) {
    for (const e of g.entries) codes.set(e.member_id, await memberSecurityCode(state.id, e.public_key));
  }
  const highestKey = holding?.roomKeys.get(holding.highest);
  const fragment =
    holding && highestKey && state.current_generation === holding.highest
      ? roomFragment({ roomId: state.id, generation: holding.highest, roomKey: highestKey })
      : undefined;
  return {
    encrypted: true,
    roomId: state.id,
    state,
    holding,
    title: holding ? await openTitle(state, holding) : undefined,
    names,
    namesByKey,
    codes,
    fragment,
    problem,
  };
}

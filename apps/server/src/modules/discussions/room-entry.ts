/**
 * What every way into an encrypted discussion shares (created, by link, admitted by typed ID): the checks the server
 * can make without any key (the name tag unique among the generation's active members, the key not listed twice,
 * room for one more) and the member row with its entry, logged to the members.
 */
import { randomUUID } from "node:crypto";
import { API_ERROR_CODES, ROOM_ERROR_CODES, type RoomEntryInput } from "@daysync/shared";
import type { Work } from "../../feed/unit-of-work.ts";
import { conflict } from "../../http/errors.ts";
import type { SpacesRepository } from "../spaces/index.ts";
import { noSuchDiscussion } from "./discussion-access.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";
import type { RoomsRepository } from "./rooms.repository.ts";

/** The same words as the clear-name clash: a name tag is the name, compared without reading it. */
export const nameTaken = () =>
  conflict(API_ERROR_CODES.displayNameTaken, "Someone in this discussion already goes by this name: choose another one.", "display_name");

export interface EntryPlace {
  spaceId: string;
  generation: number;
  now: number;
}

/** Refuses an entry whose name tag an active member's entry in that generation has, or whose key is listed already. */
export async function assertEntryFree(
  rooms: RoomsRepository,
  discussions: DiscussionsRepository,
  place: EntryPlace,
  entry: Pick<RoomEntryInput, "key_id" | "name_tag">,
) {
  const [entries, members] = await Promise.all([rooms.entriesOf(place.spaceId, place.generation), discussions.members(place.spaceId)]);
  const active = new Set(members.map((m) => m.id));
  if (entries.some((e) => e.key_id === entry.key_id))
    throw conflict("conflict", "This member key is already listed in this discussion.", "key_id");
  if (entries.some((e) => e.name_tag === entry.name_tag && active.has(e.member_id))) throw nameTaken();
}

/** Refuses a join into a full discussion, as the clear join does. */
export function assertRoomForOneMore(memberIds: string[], maxMembers: number) {
  if (memberIds.length >= maxMembers) {
    throw conflict(API_ERROR_CODES.discussionFull, `This discussion is full: it has the most members allowed (${maxMembers}).`);
  }
}

/**
 * Makes `userId` an active member (a new row, or the row of one who left; one who was removed is a 404) with its
 * entry in `place.generation`, and tells the members: `discussion.upserted` to all, `discussion.member_joined` to the others.
 * Answers the member id.
 */
export async function enterRoom(
  work: Work,
  deps: { spaces: SpacesRepository; discussions: DiscussionsRepository; rooms: RoomsRepository },
  place: EntryPlace & { memberIds: string[]; userId: string; role: "owner" | "member" },
  entry: RoomEntryInput,
): Promise<string> {
  const { spaceId, generation, now, userId } = place;
  const discussions = deps.discussions.in(work.trx);
  const spaces = deps.spaces.in(work.trx);
  const mine = await discussions.memberRowOf(spaceId, userId);
  if (mine?.left_reason === "removed") throw noSuchDiscussion();
  let memberId = mine?.id ?? randomUUID();
  if (mine && mine.left_at !== null) await spaces.rejoin(mine.id, "", now);
  else if (!mine) {
    const row = { id: memberId, space_id: spaceId, user_id: userId, display_name: "", role: place.role, joined_at: now };
    await spaces.insertMember({ ...row, last_read_at: now, left_at: null, left_reason: null });
  } else memberId = mine.id;
  await deps.rooms
    .in(work.trx)
    .insertEntries([{ ...entry, space_id: spaceId, generation, member_id: memberId, user_id: userId, created_at: now }]);
  const everyone = [...new Set([...place.memberIds, userId])];
  const row = await discussions.find(spaceId);
  if (row) {
    const facts = { discussion: row, members: await discussions.members(spaceId), history: await discussions.memberHistory(spaceId) };
    await work.record(everyone, { kind: "discussion.upserted", discussionId: spaceId }, facts);
  }
  const others = place.memberIds.filter((id) => id !== userId);
  if (others.length > 0) {
    await work.record(others, { kind: "discussion.member_joined", discussionId: spaceId, memberId, generation, keyId: entry.key_id });
  }
  return memberId;
}

/** 409 to what only a discussion in clear takes: an encrypted one is reached by its devices' sealed values. */
export const encryptedRefusal = (how: string) =>
  conflict(ROOM_ERROR_CODES.encryptedRoom, `This discussion is end-to-end encrypted: it can only be ${how}.`);

/**
 * A member left an encrypted discussion or was removed: the remaining members are told which member keys went, so
 * that one of their devices makes the next generation without them (docs/protocol/encryption.md, rotation).
 */
export async function recordRoomDeparture(
  work: Work,
  rooms: RoomsRepository,
  left: { spaceId: string; memberId: string; userId: string; memberIds: string[] },
) {
  const locked = rooms.in(work.trx);
  if (!(await locked.room(left.spaceId))) return;
  const keyIds = await locked.keyIdsOf(left.spaceId, left.userId);
  const others = left.memberIds.filter((id) => id !== left.userId);
  await work.record(others, { kind: "discussion.member_left", discussionId: left.spaceId, memberId: left.memberId, keyIds });
}

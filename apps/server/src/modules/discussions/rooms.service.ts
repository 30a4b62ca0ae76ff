/**
 * Encrypted discussions' life on the server (docs/protocol/encryption.md, "Encrypted discussions"): created under the
 * id the creator's device chose, joined with a link's key, rotated to the next generation (the first device wins),
 * and each account's own sealed values. The server relays and stores; the devices verify.
 */
import {
  type CreateRoomInput,
  DISCUSSION_LIFETIME_MS,
  type LinkJoinInput,
  normalizePublicId,
  type OwnValuesInput,
  ROOM_ERROR_CODES,
  type RoomState,
  type RotationInput,
} from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, forbidden } from "../../http/errors.ts";
import { presentRoom } from "../../presenters/room.presenter.ts";
import type { AccessRepository, SpacesRepository } from "../spaces/index.ts";
import { discussionMembership, noSuchDiscussion } from "./discussion-access.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";
import { freePublicId } from "./public-id.ts";
import { assertEntryFree, assertRoomForOneMore, enterRoom } from "./room-entry.ts";
import type { RoomsRepository } from "./rooms.repository.ts";

export interface RoomsDeps {
  clock: Clock;
  unitOfWork: UnitOfWork;
  rooms: RoomsRepository;
  discussions: DiscussionsRepository;
  access: AccessRepository;
  spaces: SpacesRepository;
  maxMembers: number;
}

/** 409 to a room route on a discussion in clear. */
export const notEncrypted = () => conflict(ROOM_ERROR_CODES.encryptedRoom, "This discussion is not end-to-end encrypted.");

export function createRoomsService(deps: RoomsDeps) {
  const { clock, unitOfWork, rooms, discussions, access, spaces } = deps;

  /** The caller's membership and the room (404 for a non-member or an ended discussion, 409 for one in clear). */
  async function memberOfRoom(userId: string, spaceId: string) {
    const membership = await discussionMembership(access, userId, spaceId, clock.now());
    const room = await rooms.room(spaceId);
    if (!room) throw notEncrypted();
    return { membership, room };
  }

  async function state(userId: string, spaceId: string): Promise<RoomState> {
    const { membership } = await memberOfRoom(userId, spaceId);
    const [room, space, generations, entries, members, keyIds, own] = await Promise.all([
      rooms.room(spaceId),
      discussions.find(spaceId),
      rooms.generations(spaceId),
      rooms.entries(spaceId),
      discussions.members(spaceId),
      rooms.keyIdsOf(spaceId, userId),
      rooms.own(userId, spaceId),
    ]);
    if (!room || !space) throw noSuchDiscussion();
    const wraps = await rooms.wrapsFor(spaceId, keyIds);
    return presentRoom({
      room,
      space,
      generations,
      entries,
      active: new Set(members.map((m) => m.id)),
      wraps,
      own,
      memberId: membership.memberId,
    });
  }

  /** The open encrypted discussion with this typed or linked ID. */
  async function roomByPublicId(typedId: string) {
    const publicId = normalizePublicId(typedId);
    const spaceId = publicId && (await discussions.openByPublicId(publicId, clock.now()));
    if (!spaceId) throw noSuchDiscussion();
    return { spaceId, room: await rooms.room(spaceId) };
  }

  return {
    state,
    roomByPublicId,
    memberOfRoom,

    async create(userId: string, input: CreateRoomInput): Promise<RoomState> {
      const now = clock.now();
      // Any space's id, a personal one's too (an account's id): the insert would fail on it.
      const taken = () => conflict(ROOM_ERROR_CODES.roomIdTaken, "This id is taken: make another.", "id");
      if (await discussions.spaceIdTaken(input.id)) throw taken();
      const publicId = await freePublicId(discussions);
      await unitOfWork.forUser(userId, async (work) => {
        if (await discussions.in(work.trx).spaceIdTaken(input.id)) throw taken();
        const space = { id: input.id, kind: "discussion" as const, title: "", public_id: publicId, created_by: userId };
        await spaces.in(work.trx).insertSpace({ ...space, created_at: now, updated_at: now, ends_at: now + DISCUSSION_LIFETIME_MS });
        const written = rooms.in(work.trx);
        await written.insertRoom({ space_id: input.id, sealed_title: input.sealed_title, current_generation: 1, id_joining: 1 });
        await written.insertGeneration({ space_id: input.id, generation: 1, made_by: null, created_at: now });
        await enterRoom(work, deps, { spaceId: input.id, generation: 1, now, memberIds: [], userId, role: "owner" }, input.entry);
        await written.putOwn(input.own.map((v) => ({ ...v, user_id: userId, space_id: input.id })));
      });
      return state(userId, input.id);
    },

    /** Joins with a link's key: the caller's own `link` entry in the link's generation, which must be the current one. */
    async joinByLink(userId: string, typedId: string, input: LinkJoinInput): Promise<{ state: RoomState; joined: boolean }> {
      const { spaceId, room } = await roomByPublicId(typedId);
      if (!room) throw notEncrypted();
      const now = clock.now();
      const joined = await unitOfWork.forSpace(
        spaceId,
        async (work, memberIds) => {
          const locked = rooms.in(work.trx);
          const current = (await locked.room(spaceId))?.current_generation ?? 0;
          if (input.generation !== current) {
            throw conflict(
              ROOM_ERROR_CODES.generationNotCurrent,
              `This link carries key generation ${input.generation}, but the discussion is at generation ${current}: ask a member for a new link.`,
              "generation",
            );
          }
          const mine = await discussions.in(work.trx).memberRowOf(spaceId, userId);
          if (mine?.left_reason === "removed") throw noSuchDiscussion();
          if (mine && mine.left_at === null) return false;
          assertRoomForOneMore(memberIds, deps.maxMembers);
          await assertEntryFree(locked, discussions.in(work.trx), { spaceId, generation: current, now }, input.entry);
          await enterRoom(work, deps, { spaceId, generation: current, now, memberIds, userId, role: "member" }, input.entry);
          await locked.putOwn(input.own.map((v) => ({ ...v, user_id: userId, space_id: spaceId })));
          return true;
        },
        { joining: userId },
      );
      return { state: await state(userId, spaceId), joined };
    },

    /**
     * Generation n+1 with its entries and wraps, from one of the caller's member keys of generation n: taken only
     * when n is current (the first device wins; a loser or a skip is a 409 naming the current generation). Each entry
     * names a member of generation n, whose account it stays.
     */
    async rotate(userId: string, spaceId: string, input: RotationInput): Promise<RoomState> {
      await memberOfRoom(userId, spaceId);
      const now = clock.now();
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        if (!memberIds.includes(userId)) throw noSuchDiscussion();
        const locked = rooms.in(work.trx);
        const current = (await locked.room(spaceId))?.current_generation ?? 0;
        if (input.generation <= current) {
          throw conflict(
            ROOM_ERROR_CODES.generationTaken,
            `Generation ${input.generation} is taken: the discussion is at generation ${current}.`,
            "generation",
          );
        }
        if (input.generation > current + 1) {
          throw conflict(
            ROOM_ERROR_CODES.generationSkipped,
            `Generation ${input.generation} skips one: the discussion is at generation ${current}.`,
            "generation",
          );
        }
        const before = new Map((await locked.entriesOf(spaceId, current)).map((e) => [e.key_id, e]));
        if (before.get(input.sender_key_id)?.user_id !== userId) {
          throw badRequest(`sender_key_id is not your member key in generation ${current}.`, "sender_key_id");
        }
        const keys = new Set<string>();
        const rows = input.entries.map((entry) => {
          const was = before.get(entry.key_id);
          if (!was || keys.has(entry.key_id))
            throw badRequest(`Each entry must name a different member of generation ${current}.`, "entries");
          keys.add(entry.key_id);
          return {
            ...entry,
            space_id: spaceId,
            generation: input.generation,
            member_id: was.member_id,
            user_id: was.user_id,
            created_at: now,
          };
        });
        if (input.wraps.some((w) => w.generation !== input.generation))
          throw badRequest("Every wrap must be of the new generation.", "wraps");
        await locked.insertGeneration({ space_id: spaceId, generation: input.generation, made_by: input.sender_key_id, created_at: now });
        await locked.insertEntries(rows);
        await locked.insertWraps(input.wraps.map((w) => ({ ...w, space_id: spaceId, handover_tag: null, created_at: now })));
        await locked.updateRoom(spaceId, { current_generation: input.generation });
        const change = {
          kind: "discussion.rotated",
          discussionId: spaceId,
          generation: input.generation,
          senderKeyId: input.sender_key_id,
        } as const;
        await work.record(memberIds, change);
      });
      return state(userId, spaceId);
    },

    /** The caller's own sealed seed and room keys, and its name sealed under the current generation. */
    async putOwn(userId: string, spaceId: string, input: OwnValuesInput): Promise<RoomState> {
      const { room } = await memberOfRoom(userId, spaceId);
      await rooms.putOwn(input.values.map((v) => ({ ...v, user_id: userId, space_id: spaceId })));
      if (input.sealed_name !== undefined) {
        const mine = (await rooms.entriesOf(spaceId, room.current_generation)).find((e) => e.user_id === userId);
        if (!mine) throw conflict("conflict", "You have no entry in this discussion's current generation yet.");
        await rooms.setSealedName(spaceId, room.current_generation, mine.key_id, input.sealed_name);
      }
      return state(userId, spaceId);
    },

    /** The creator turns typed-ID joining on or off, or renames it with a sealed title. */
    async update(userId: string, spaceId: string, patch: { id_joining?: boolean; sealed_title?: string }): Promise<RoomState> {
      const { membership } = await memberOfRoom(userId, spaceId);
      // The creator's say, as renaming is.
      if (!may({ userId }, "discussion.rename", { membership })) {
        throw forbidden("Only the creator of this discussion can change how it is joined or its title.");
      }
      await rooms.updateRoom(spaceId, {
        ...(patch.id_joining === undefined ? {} : { id_joining: patch.id_joining ? 1 : 0 }),
        ...(patch.sealed_title === undefined ? {} : { sealed_title: patch.sealed_title }),
      });
      return state(userId, spaceId);
    },
  };
}

export type RoomsService = ReturnType<typeof createRoomsService>;

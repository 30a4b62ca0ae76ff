/**
 * Joining an encrypted discussion by typed ID (docs/protocol/encryption.md, "Admission by typed ID"): the server
 * relays the CPace exchange between the joiner and the one member who answers, in order (asked, answered,
 * confirmed, admitted; or refused by the joiner's device after a wrong code, which closes it), and on admission makes the joiner a member with the entry and wraps that member posted.
 * Each step is logged to the joiner and the members (`discussion.join_requested`, `discussion.join_updated`).
 */
import { randomUUID } from "node:crypto";
import {
  type AdmitInput,
  JOIN_REQUEST_TTL_MS,
  type JoinRefusalInput,
  type JoinRequestAnswer,
  type JoinRequestInput,
  ROOM_ERROR_CODES,
} from "@daysync/shared";
import type { JoinRequestState, RoomJoinRequestsTable } from "../../db/schema.ts";
import type { Work } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, notFound } from "../../http/errors.ts";
import { presentJoinRequest } from "../../presenters/room.presenter.ts";
import { noSuchDiscussion } from "./discussion-access.ts";
import { assertEntryFree, assertRoomForOneMore, enterRoom } from "./room-entry.ts";
import { notEncrypted, type RoomsDeps, type RoomsService } from "./rooms.service.ts";

const outOfOrder = (what: string) => conflict(ROOM_ERROR_CODES.requestState, what);
const noSuchRequest = () => notFound("join request");

export function createRoomRequestsService(deps: RoomsDeps & { roomsService: RoomsService }) {
  const { clock, unitOfWork, rooms, discussions, roomsService } = deps;

  async function present(row: RoomJoinRequestsTable): Promise<JoinRequestAnswer> {
    if (row.state !== "admitted") return presentJoinRequest(row);
    const entries = await rooms.entries(row.space_id);
    const entry = entries.find((e) => e.admission === "code" && e.admission_id === row.id);
    const wraps = (await rooms.wrapsFor(row.space_id, [row.joiner_key_id])).filter((w) => w.handover_tag === row.handover_tag);
    return presentJoinRequest(row, { entry, wraps });
  }

  /** A request of this discussion still open (not expired), for a member's step. */
  async function openRequestOf(spaceId: string, requestId: string, locked = rooms) {
    const row = await locked.request(requestId);
    if (!row || row.space_id !== spaceId || row.expires_at <= clock.now()) throw noSuchRequest();
    return row;
  }

  /** The caller's own request, while its discussion is open. */
  async function joinersRequest(userId: string, requestId: string) {
    const row = await rooms.request(requestId);
    const space = row && (await discussions.find(row.space_id));
    if (!row || row.user_id !== userId || !space || space.ends_at <= clock.now()) throw noSuchRequest();
    return row;
  }

  /** Logs a step to the joiner and the active members. */
  async function recordStep(work: Work, row: RoomJoinRequestsTable, memberIds: string[], state: Exclude<JoinRequestState, "open">) {
    const to = [...new Set([...memberIds, row.user_id])];
    await work.record(to, { kind: "discussion.join_updated", discussionId: row.space_id, requestId: row.id, state });
  }

  return {
    /** Which discussion a typed ID names, before the joiner binds its exchange to the room id. */
    async lookup(typedId: string) {
      const { spaceId, room } = await roomsService.roomByPublicId(typedId);
      return {
        id: spaceId,
        encrypted: room !== undefined,
        current_generation: room?.current_generation ?? 0,
        id_joining: room ? room.id_joining === 1 : true,
      };
    },

    async create(userId: string, typedId: string, input: JoinRequestInput): Promise<JoinRequestAnswer> {
      const { spaceId, room } = await roomsService.roomByPublicId(typedId);
      if (!room) throw notEncrypted();
      if (room.id_joining !== 1) {
        throw conflict(
          ROOM_ERROR_CODES.idJoiningOff,
          "The creator of this discussion turned off joining by ID: ask a member for the link.",
        );
      }
      const now = clock.now();
      const id = randomUUID();
      await unitOfWork.forSpace(
        spaceId,
        async (work, memberIds) => {
          const mine = await discussions.in(work.trx).memberRowOf(spaceId, userId);
          if (mine?.left_reason === "removed") throw noSuchDiscussion();
          if (mine && mine.left_at === null) throw conflict("conflict", "You are already a member of this discussion.");
          assertRoomForOneMore(memberIds, deps.maxMembers);
          const row = {
            id,
            space_id: spaceId,
            user_id: userId,
            name: input.name,
            joiner_key_id: input.joiner_key_id,
            joiner_public_key: input.joiner_public_key,
            share: input.share,
            member_user_id: null,
            member_key_id: null,
            member_public_key: null,
            answer_share: null,
            answer_confirmation: null,
            joiner_confirmation: null,
            handover_tag: null,
            state: "open" as const,
            created_at: now,
            expires_at: now + JOIN_REQUEST_TTL_MS,
          };
          await rooms.in(work.trx).insertRequest(row);
          await work.record(memberIds, { kind: "discussion.join_requested", discussionId: spaceId, requestId: id });
        },
        { joining: userId },
      );
      return present((await rooms.request(id)) as RoomJoinRequestsTable);
    },

    /** The joiner's own request (404 to anyone else, and once its discussion ended). */
    async own(userId: string, requestId: string): Promise<JoinRequestAnswer> {
      return present(await joinersRequest(userId, requestId));
    },

    /** The open requests of a discussion, for its members; a refused one only to the member who answered it (to say so). */
    async list(userId: string, spaceId: string): Promise<JoinRequestAnswer[]> {
      await roomsService.memberOfRoom(userId, spaceId);
      const rows = await rooms.openRequests(spaceId, clock.now());
      return Promise.all(rows.filter((r) => r.state !== "refused" || r.member_user_id === userId).map(present));
    },

    /** A member's answer: the first one is kept; its member key must be the caller's in the current generation. */
    async answer(
      userId: string,
      spaceId: string,
      requestId: string,
      input: { member_key_id: string; member_public_key: string; share: string; confirmation: string },
    ): Promise<JoinRequestAnswer> {
      const { room } = await roomsService.memberOfRoom(userId, spaceId);
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        const locked = rooms.in(work.trx);
        const row = await openRequestOf(spaceId, requestId, locked);
        if (row.state !== "open") throw outOfOrder("Another member already answered this request to join.");
        const mine = (await locked.entriesOf(spaceId, room.current_generation)).find((e) => e.key_id === input.member_key_id);
        if (mine?.user_id !== userId) throw badRequest("member_key_id is not your member key in the current generation.", "member_key_id");
        const answer = { member_key_id: input.member_key_id, member_public_key: input.member_public_key, answer_share: input.share };
        await locked.updateRequest(requestId, {
          ...answer,
          answer_confirmation: input.confirmation,
          member_user_id: userId,
          state: "answered",
        });
        await recordStep(work, row, memberIds, "answered");
      });
      return present(await openRequestOf(spaceId, requestId));
    },

    /** The joiner's confirmation, once a member answered. */
    async confirm(userId: string, requestId: string, confirmation: string): Promise<JoinRequestAnswer> {
      const first = await joinersRequest(userId, requestId);
      if (first.expires_at <= clock.now()) throw noSuchRequest();
      await unitOfWork.forSpace(first.space_id, async (work, memberIds) => {
        const locked = rooms.in(work.trx);
        const row = await openRequestOf(first.space_id, requestId, locked);
        if (row.state !== "answered") throw outOfOrder("This request to join is not waiting for a confirmation.");
        await locked.updateRequest(requestId, { joiner_confirmation: confirmation, state: "confirmed" });
        await recordStep(work, row, memberIds, "confirmed");
      });
      return present(await openRequestOf(first.space_id, requestId));
    },

    /**
     * The joiner's device found the answer wrong (the only `reason` today: the code typed was not the one it shows).
     * The request closes: nothing can be answered, confirmed or admitted on it again, and the answering member's page,
     * told live, says so at once. Only from `answered`: a request confirmed or admitted is past that check.
     */
    async refuse(userId: string, requestId: string, _input: JoinRefusalInput): Promise<JoinRequestAnswer> {
      const first = await joinersRequest(userId, requestId);
      await unitOfWork.forSpace(first.space_id, async (work, memberIds) => {
        const locked = rooms.in(work.trx);
        const row = await openRequestOf(first.space_id, requestId, locked);
        if (row.state !== "answered") throw outOfOrder("This request to join has no answer to refuse.");
        await locked.updateRequest(requestId, { state: "refused" });
        await recordStep(work, row, memberIds, "refused");
      });
      return present(await openRequestOf(first.space_id, requestId));
    },

    /**
     * The answering member hands over: the joiner's `code` entry in the current generation (its key the request's,
     * its admission id the request's id), the wraps for the joiner's key, and the handover's tag. The joiner becomes
     * a member.
     */
    async admit(userId: string, spaceId: string, requestId: string, input: AdmitInput): Promise<JoinRequestAnswer> {
      await roomsService.memberOfRoom(userId, spaceId);
      const now = clock.now();
      const first = await openRequestOf(spaceId, requestId);
      await unitOfWork.forSpace(
        spaceId,
        async (work, memberIds) => {
          const locked = rooms.in(work.trx);
          const row = await openRequestOf(spaceId, requestId, locked);
          if (row.state !== "confirmed" || row.member_user_id !== userId) {
            throw outOfOrder("Only the member who answered can let this person in, once they confirmed.");
          }
          const { entry } = input;
          if (entry.key_id !== row.joiner_key_id || entry.admission !== "code" || entry.admission_id !== row.id) {
            throw badRequest("entry must be the joiner's code entry for this request.", "entry");
          }
          if (input.wraps.some((w) => w.recipient_key_id !== row.joiner_key_id || w.sender_key_id !== row.member_key_id)) {
            throw badRequest("Every wrap must be from the answering member's key to the joiner's key.", "wraps");
          }
          const generation = (await locked.room(spaceId))?.current_generation ?? 0;
          assertRoomForOneMore(memberIds, deps.maxMembers);
          await assertEntryFree(locked, discussions.in(work.trx), { spaceId, generation, now }, entry);
          await enterRoom(work, deps, { spaceId, generation, now, memberIds, userId: row.user_id, role: "member" }, entry);
          const wraps = input.wraps.map((w) => ({ ...w, space_id: spaceId, handover_tag: input.handover_tag, created_at: now }));
          await locked.insertWraps(wraps);
          await locked.updateRequest(requestId, { handover_tag: input.handover_tag, state: "admitted" });
          await recordStep(work, row, memberIds, "admitted");
        },
        { joining: first.user_id },
      );
      return present(await openRequestOf(spaceId, requestId));
    },
  };
}

export type RoomRequestsService = ReturnType<typeof createRoomRequestsService>;

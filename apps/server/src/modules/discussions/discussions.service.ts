/**
 * A discussion's life (decision 016): created, joined by ID, renamed, extended, left, members removed, ended by its
 * creator or by time. Every change is logged to the members' change logs in the transaction that makes it, and
 * published on the bus once it commits.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  API_ERROR_CODES,
  type CreateDiscussionInput,
  canExtendBy,
  DAY_MS,
  type DepartureReason,
  DISCUSSION_LIFETIME_MS,
  DISCUSSION_MAX_AHEAD_DAYS,
  type DiscussionClosedReason,
  type DiscussionDetails,
  displayNameKey,
  FREE_TYPE_ID,
  type MyDiscussion,
  normalizePublicId,
  PREMIUM_PLAN,
  PUBLIC_ID_ALPHABET,
  PUBLIC_ID_LENGTH,
} from "@daysync/shared";
import { type Action, may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { UnitOfWork, Work } from "../../feed/unit-of-work.ts";
import { AppError, conflict, forbidden, notFound } from "../../http/errors.ts";
import { presentMember, presentMemberChanges, presentMyDiscussion } from "../../presenters/discussion.presenter.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { AccessRepository, Membership, SpacesRepository } from "../spaces/index.ts";
import { discussionMembership, noSuchDiscussion } from "./discussion-access.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";
import { encryptedRefusal, recordRoomDeparture } from "./room-entry.ts";
import type { RoomsRepository } from "./rooms.repository.ts";

/** What a paid extension did: how much of the paid time it applied, and how much it could not (and why). */
export interface PaidExtension {
  applied_ms: number;
  excess_ms: number;
  reason?: "granted_before" | "discussion_gone" | "not_a_member" | "past_the_limit";
}

/** A fresh public ID: 10 characters of Crockford base32 (32 divides 256, so each character is uniform). */
export function newPublicId(): string {
  return Array.from(randomBytes(PUBLIC_ID_LENGTH), (b) => PUBLIC_ID_ALPHABET[b % 32]).join("");
}

/** 409 when `days` more would end it past `DISCUSSION_MAX_AHEAD_DAYS` from now. */
function refuseTooFar(endsAt: number, days: number, now: number): void {
  if (canExtendBy(endsAt, days, now)) return;
  throw conflict(
    API_ERROR_CODES.extensionTooFar,
    `A discussion can end at most ${DISCUSSION_MAX_AHEAD_DAYS} days from now: this one cannot be extended by ${days} days.`,
  );
}

export function createDiscussionsService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  discussions: DiscussionsRepository;
  /** Encrypted discussions' rows: a leave from one is told with the member keys that left. */
  rooms: RoomsRepository;
  access: AccessRepository;
  /** The one writer of spaces and their members. */
  spaces: SpacesRepository;
  plans: PlansRepository;
  maxMembers: number;
  /** Removes a file's bytes from storage (after the rows that named it are deleted). */
  removeFile: (uploadId: string) => Promise<void>;
  /** Removes the unfinished uploads into the discussion, once it is deleted (none can be started into it then). */
  removeUnfinishedUploads: (spaceId: string) => Promise<void>;
  /** Erased in its transaction, owned by modules above this one: its uploads (ids returned), messages, or an author's. */
  content: {
    eraseUploads: (trx: Db, spaceId: string) => Promise<string[]>;
    eraseMessages: (trx: Db, spaceId: string) => Promise<void>;
    eraseAuthor: (trx: Db, spaceId: string, authorId: string) => Promise<string[]>;
  };
}) {
  const { clock, unitOfWork, discussions: repo, access, spaces } = deps;

  const membershipOf = (userId: string, spaceId: string) => discussionMembership(access, userId, spaceId, clock.now());

  /** The caller's membership, once the policies allow `action` (the 404 for a non-member, else 403 `refusal`). */
  async function allowed(userId: string, spaceId: string, action: Action, refusal: string): Promise<Membership> {
    const membership = await membershipOf(userId, spaceId);
    if (!may({ userId }, action, { membership })) throw forbidden(refusal);
    return membership;
  }

  /** Records the discussion as it now is, for these members. */
  async function recordUpserted(work: Work, spaceId: string, userIds: string[]) {
    const locked = repo.in(work.trx);
    const row = await locked.find(spaceId);
    if (!row) return;
    const facts = { discussion: row, members: await locked.members(spaceId), history: await locked.memberHistory(spaceId) };
    await work.record(userIds, { kind: "discussion.upserted", discussionId: spaceId }, facts);
  }

  async function recordClosed(work: Work, spaceId: string, userIds: string[], reason: DiscussionClosedReason) {
    const change = { kind: "discussion.closed", discussionId: spaceId, reason } as const;
    await work.record(userIds, change);
  }

  /** Refuses a display name another active member of the space (the creator included) already goes by. */
  async function assertNameFree(locked: DiscussionsRepository, spaceId: string, displayName: string) {
    const key = displayNameKey(displayName);
    const members = await locked.members(spaceId);
    if (members.some((m) => displayNameKey(m.display_name) === key)) {
      throw conflict(
        API_ERROR_CODES.displayNameTaken,
        "Someone in this discussion already goes by this name: choose another one.",
        "display_name",
      );
    }
  }

  async function myDiscussion(userId: string, spaceId: string): Promise<MyDiscussion> {
    const [membership, row] = await Promise.all([access.membership(userId, spaceId, clock.now()), repo.findMine(spaceId, userId)]);
    if (!membership || !row) throw noSuchDiscussion();
    return presentMyDiscussion(row);
  }

  async function details(userId: string, spaceId: string): Promise<DiscussionDetails> {
    const discussion = await myDiscussion(userId, spaceId);
    const [members, history] = await Promise.all([repo.members(spaceId), repo.memberHistory(spaceId)]);
    return { discussion, members: members.map(presentMember), member_changes: presentMemberChanges(history) };
  }

  /**
   * Ends the discussion for everyone: each member is told why (`discussion.closed`) in the transaction that
   * deletes the space with its members, messages and upload rows; then its files' bytes are removed, and the
   * uploads into it that had not finished. The creator's end and the sweeper's expiry both come here. An expiry
   * finds nothing to do if the end moved meanwhile.
   */
  async function close(spaceId: string, reason: "ended" | "expired"): Promise<boolean> {
    const now = clock.now();
    const files = await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
      const locked = repo.in(work.trx);
      const row = await locked.find(spaceId);
      if (!row || (reason === "expired" && row.ends_at > now)) return undefined;
      await recordClosed(work, spaceId, memberIds, reason);
      if (!(await locked.isDiscussion(spaceId))) return [];
      const uploads = await deps.content.eraseUploads(work.trx, spaceId);
      await deps.content.eraseMessages(work.trx, spaceId);
      await spaces.in(work.trx).deleteSpace(spaceId);
      return uploads;
    });
    if (!files) return false;
    for (const id of files) await deps.removeFile(id);
    await deps.removeUnfinishedUploads(spaceId);
    return true;
  }

  /** A member stops being one (`left` by themselves, or `removed` by the creator): the others are told, and so are they. */
  async function depart(spaceId: string, memberRowId: string, userId: string, reason: DepartureReason) {
    const now = clock.now();
    await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
      if (!memberIds.includes(userId)) return;
      await spaces.in(work.trx).markLeft(memberRowId, reason, now);
      await recordUpserted(
        work,
        spaceId,
        memberIds.filter((id) => id !== userId),
      );
      await recordClosed(work, spaceId, [userId], reason);
      await recordRoomDeparture(work, deps.rooms, { spaceId, memberId: memberRowId, userId, memberIds });
    });
  }

  return {
    async create(userId: string, input: CreateDiscussionInput): Promise<DiscussionDetails> {
      const now = clock.now();
      const spaceId = randomUUID();
      let publicId = newPublicId();
      // 32^10 IDs: a collision is rare enough that a few tries always find a free one.
      for (let tries = 0; await repo.publicIdTaken(publicId); tries++) {
        if (tries > 5) throw new Error("No free discussion ID found.");
        publicId = newPublicId();
      }
      await unitOfWork.forUser(userId, async (work) => {
        const written = spaces.in(work.trx);
        await written.insertSpace({
          id: spaceId,
          kind: "discussion",
          title: input.title,
          public_id: publicId,
          created_by: userId,
          created_at: now,
          updated_at: now,
          ends_at: now + DISCUSSION_LIFETIME_MS,
        });
        await written.insertMember({
          id: randomUUID(),
          space_id: spaceId,
          user_id: userId,
          display_name: input.display_name,
          role: "owner",
          joined_at: now,
          last_read_at: now,
          left_at: null,
          left_reason: null,
        });
        await recordUpserted(work, spaceId, [userId]);
      });
      return details(userId, spaceId);
    },

    async list(userId: string): Promise<MyDiscussion[]> {
      return (await repo.listFor(userId, clock.now())).map(presentMyDiscussion);
    },

    details,

    /**
     * Joins by a typed or linked ID. Answers whether the caller became a member now (false: already one). A wrong
     * ID, an ended discussion and one the caller was removed from are the same 404.
     */
    async join(userId: string, typedId: string, displayName: string): Promise<{ details: DiscussionDetails; joined: boolean }> {
      const now = clock.now();
      const publicId = normalizePublicId(typedId);
      const spaceId = publicId && (await repo.openByPublicId(publicId, now));
      if (!spaceId) throw noSuchDiscussion();
      const joined = await unitOfWork.forSpace(
        spaceId,
        async (work, memberIds) => {
          const locked = repo.in(work.trx);
          const row = await locked.find(spaceId);
          if (!row || row.ends_at <= now) throw noSuchDiscussion();
          const mine = await locked.memberRowOf(spaceId, userId);
          if (mine?.left_reason === "removed") throw noSuchDiscussion();
          if (mine && mine.left_at === null) return false;
          if (await deps.rooms.in(work.trx).room(spaceId)) throw encryptedRefusal("joined with the link or by asking a member");
          if (memberIds.length >= deps.maxMembers) {
            throw conflict(
              API_ERROR_CODES.discussionFull,
              `This discussion is full: it has the most members allowed (${deps.maxMembers}).`,
            );
          }
          await assertNameFree(locked, spaceId, displayName);
          if (mine) await spaces.in(work.trx).rejoin(mine.id, displayName, now);
          else {
            await spaces.in(work.trx).insertMember({
              id: randomUUID(),
              space_id: spaceId,
              user_id: userId,
              display_name: displayName,
              role: "member",
              joined_at: now,
              last_read_at: now,
              left_at: null,
              left_reason: null,
            });
          }
          await recordUpserted(work, spaceId, [...memberIds, userId]);
          return true;
        },
        { joining: userId },
      );
      return { details: await details(userId, spaceId), joined };
    },

    async rename(userId: string, spaceId: string, title: string): Promise<DiscussionDetails> {
      await allowed(userId, spaceId, "discussion.rename", "Only the creator of this discussion can rename it.");
      if (await deps.rooms.room(spaceId)) throw encryptedRefusal("renamed with a sealed title");
      const now = clock.now();
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        await spaces.in(work.trx).rename(spaceId, title, now);
        await recordUpserted(work, spaceId, memberIds);
      });
      return details(userId, spaceId);
    },

    /** A premium member moves the end `days` later than it is now, to at most `DISCUSSION_MAX_AHEAD_DAYS` ahead of now. */
    async extend(userId: string, spaceId: string, days: number): Promise<DiscussionDetails> {
      await allowed(userId, spaceId, "discussion.extend", "You cannot extend this discussion.");
      const plan = await deps.plans.currentPlanOf(userId);
      if (!plan || Number(plan.subscription_type_id) === FREE_TYPE_ID) {
        throw new AppError(403, API_ERROR_CODES.premiumRequired, `Extending a discussion needs the ${PREMIUM_PLAN.title}.`);
      }
      const now = clock.now();
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        const locked = repo.in(work.trx);
        const row = await locked.find(spaceId);
        if (!row || row.ends_at <= now) throw noSuchDiscussion();
        refuseTooFar(row.ends_at, days, now);
        await spaces.in(work.trx).setEnd(spaceId, row.ends_at + days * DAY_MS, now);
        await recordUpserted(work, spaceId, memberIds);
      });
      return details(userId, spaceId);
    },

    /**
     * Whether a member may pay to extend it by `days`: refused before any checkout (404 to a non-member, 409 past
     * `DISCUSSION_MAX_AHEAD_DAYS`), so that nobody pays for what cannot be granted.
     */
    async assertExtendable(userId: string, spaceId: string, days: number): Promise<void> {
      await allowed(userId, spaceId, "discussion.extend", "You cannot extend this discussion.");
      const row = await repo.find(spaceId);
      const now = clock.now();
      if (!row || row.ends_at <= now) throw noSuchDiscussion();
      refuseTooFar(row.ends_at, days, now);
    },

    /**
     * A paid extension, for everyone: `claim`, in the same transaction, says whether this payment is granted now
     * (false: it was before), so each payment extends once. The limits are checked again as it is applied (issue 42:
     * checkouts opened before any was paid each passed alone, and the payer may have left): the end moves to at most
     * `DISCUSSION_MAX_AHEAD_DAYS` ahead, only for a member; what could not be applied is `excess_ms`, with `reason`.
     */
    async extendPaid(
      spaceId: string,
      payerId: string,
      days: number,
      claim: (trx: Work["trx"]) => Promise<boolean>,
    ): Promise<PaidExtension> {
      const now = clock.now();
      const paid = days * DAY_MS;
      return unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        const locked = repo.in(work.trx);
        const row = await locked.find(spaceId);
        if (!(await claim(work.trx))) return { applied_ms: 0, excess_ms: 0, reason: "granted_before" };
        if (!row || row.ends_at <= now) return { applied_ms: 0, excess_ms: paid, reason: "discussion_gone" };
        if (!memberIds.includes(payerId)) return { applied_ms: 0, excess_ms: paid, reason: "not_a_member" };
        const end = Math.min(row.ends_at + paid, now + DISCUSSION_MAX_AHEAD_DAYS * DAY_MS);
        if (end <= row.ends_at) return { applied_ms: 0, excess_ms: paid, reason: "past_the_limit" };
        await spaces.in(work.trx).setEnd(spaceId, end, now);
        await recordUpserted(work, spaceId, memberIds);
        return { applied_ms: end - row.ends_at, excess_ms: paid - (end - row.ends_at) };
      });
    },

    /** The creator ends it now, for everyone. */
    async end(userId: string, spaceId: string): Promise<void> {
      await allowed(userId, spaceId, "discussion.end", "Only the creator of this discussion can end it.");
      await close(spaceId, "ended");
    },

    async leave(userId: string, spaceId: string): Promise<void> {
      const membership = await membershipOf(userId, spaceId);
      // The one member who may not leave is its creator.
      if (!may({ userId }, "discussion.leave", { membership })) {
        throw conflict(API_ERROR_CODES.ownerCannotLeave, "You created this discussion, so you cannot leave it: end it instead.");
      }
      await depart(spaceId, membership.memberId, userId, "left");
    },

    /** The creator removes a member, who may not join again. */
    async removeMember(userId: string, spaceId: string, memberId: string): Promise<DiscussionDetails> {
      const membership = await allowed(
        userId,
        spaceId,
        "discussion.remove_member",
        "Only the creator of this discussion can remove members.",
      );
      const member = await repo.activeMember(spaceId, memberId);
      if (!member) throw notFound("member");
      if (!may({ userId }, "discussion.remove_member", { membership, removedRole: member.role })) {
        throw conflict("conflict", "You cannot remove yourself: end the discussion instead.");
      }
      await depart(spaceId, member.id, member.user_id, "removed");
      return details(userId, spaceId);
    },

    async markRead(userId: string, spaceId: string): Promise<void> {
      await membershipOf(userId, spaceId);
      await spaces.markRead(spaceId, userId, clock.now());
    },

    /**
     * Account deletion: the discussions the person created end for everyone (as End does); from the others they
     * leave (as Leave does), and their messages there go for every member, with their member row.
     */
    async forgetAccount(userId: string): Promise<void> {
      for (const spaceId of await repo.createdBy(userId)) await close(spaceId, "ended");
      for (const spaceId of await repo.joinedBy(userId)) {
        await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
          const others = memberIds.filter((id) => id !== userId);
          const wasActive = memberIds.includes(userId);
          const mine = await repo.in(work.trx).memberRowOf(spaceId, userId);
          // Told before the rows go: a room's remaining members rotate without this account's keys.
          if (wasActive && mine) await recordRoomDeparture(work, deps.rooms, { spaceId, memberId: mine.id, userId, memberIds });
          await deps.rooms.in(work.trx).forgetAccount(spaceId, userId);
          const ids = await deps.content.eraseAuthor(work.trx, spaceId, userId);
          await spaces.in(work.trx).forgetMember(spaceId, userId);
          if (ids.length > 0) {
            const deleted = { kind: "discussion.messages.deleted", discussionId: spaceId, ids } as const;
            await work.record(others, deleted);
          }
          if (wasActive) await recordUpserted(work, spaceId, others);
        });
      }
    },

    /** Ends every discussion past its end (the sweeper); returns how many. */
    async closeExpired(batch = 100): Promise<number> {
      let closed = 0;
      for (;;) {
        const ids = await repo.endedIds(clock.now(), batch);
        let inBatch = 0;
        for (const id of ids) if (await close(id, "expired")) inBatch++;
        closed += inBatch;
        if (ids.length < batch || inBatch === 0) return closed;
      }
    },
  };
}

export type DiscussionsService = ReturnType<typeof createDiscussionsService>;

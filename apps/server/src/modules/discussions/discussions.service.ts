/**
 * A discussion's life (decision 016): created, joined by ID, renamed, extended (discussion-extension.ts), left,
 * members removed, ended by its creator or by time (discussion-ending.ts). Every change is logged to the members'
 * change logs in the transaction that makes it, and published on the bus once it commits.
 */
import { randomUUID } from "node:crypto";
import {
  API_ERROR_CODES,
  type CreateDiscussionInput,
  DISCUSSION_LIFETIME_MS,
  type DiscussionDetails,
  displayNameKey,
  type MyDiscussion,
  normalizePublicId,
} from "@daysync/shared";
import { type Action, may } from "../../access/policies.ts";
import { conflict, forbidden, notFound } from "../../http/errors.ts";
import { presentMember, presentMemberChanges, presentMyDiscussion } from "../../presenters/discussion.presenter.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { AccessRepository, Membership } from "../spaces/index.ts";
import { discussionMembership, noSuchDiscussion } from "./discussion-access.ts";
import { recordUpserted } from "./discussion-changes.ts";
import { createDiscussionEnding, type DiscussionEndingDeps } from "./discussion-ending.ts";
import { createDiscussionExtension } from "./discussion-extension.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";
import { freePublicId } from "./public-id.ts";
import { encryptedRefusal } from "./room-entry.ts";

export function createDiscussionsService(
  deps: DiscussionEndingDeps & { access: AccessRepository; plans: PlansRepository; maxMembers: number },
) {
  const { clock, unitOfWork, discussions: repo, access, spaces } = deps;

  const membershipOf = (userId: string, spaceId: string) => discussionMembership(access, userId, spaceId, clock.now());

  /** The caller's membership, once the policies allow `action` (the 404 for a non-member, else 403 `refusal`). */
  async function allowed(userId: string, spaceId: string, action: Action, refusal: string): Promise<Membership> {
    const membership = await membershipOf(userId, spaceId);
    if (!may({ userId }, action, { membership })) throw forbidden(refusal);
    return membership;
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

  const ending = createDiscussionEnding(deps);
  const extension = createDiscussionExtension({ ...deps, allowed, details });

  return {
    async create(userId: string, input: CreateDiscussionInput): Promise<DiscussionDetails> {
      const now = clock.now();
      const spaceId = randomUUID();
      const publicId = await freePublicId(repo);
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
        await recordUpserted(work, repo, spaceId, [userId]);
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
          await recordUpserted(work, repo, spaceId, [...memberIds, userId]);
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
        await recordUpserted(work, repo, spaceId, memberIds);
      });
      return details(userId, spaceId);
    },

    ...extension,

    /** The creator ends it now, for everyone. */
    async end(userId: string, spaceId: string): Promise<void> {
      await allowed(userId, spaceId, "discussion.end", "Only the creator of this discussion can end it.");
      await ending.close(spaceId, "ended");
    },

    async leave(userId: string, spaceId: string): Promise<void> {
      const membership = await membershipOf(userId, spaceId);
      // The one member who may not leave is its creator.
      if (!may({ userId }, "discussion.leave", { membership })) {
        throw conflict(API_ERROR_CODES.ownerCannotLeave, "You created this discussion, so you cannot leave it: end it instead.");
      }
      await ending.depart(spaceId, membership.memberId, userId, "left");
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
      await ending.depart(spaceId, member.id, member.user_id, "removed");
      return details(userId, spaceId);
    },

    async markRead(userId: string, spaceId: string): Promise<void> {
      await membershipOf(userId, spaceId);
      await spaces.markRead(spaceId, userId, clock.now());
    },

    forgetAccount: ending.forgetAccount,
    closeExpired: ending.closeExpired,
  };
}

export type DiscussionsService = ReturnType<typeof createDiscussionsService>;

/**
 * Messages of a discussion (decision 016): sent, listed and deleted by its members only, each change written
 * to every active member's change log in the transaction that makes it, and published to their connections.
 */
import { type Discussion, type DiscussionMessage, dayKeyOf, type MyDiscussion } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import { liveEvents } from "../../feed/events.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { conflict, forbidden, notFound } from "../../http/errors.ts";
import type { SessionAuth } from "../accounts/sessions.repository.ts";
import type { MessagesRepository } from "../messages/messages.repository.ts";
import { assertPlausibleDay, messageGone, NotStored, newMessageRow, type SendInput, storeOrResend } from "../messages/messages.service.ts";
import type { AccessRepository } from "../spaces/access.repository.ts";
import { presentDiscussionMessage, presentMyDiscussion } from "./discussion.presenter.ts";
import { discussionMembership, noSuchDiscussion } from "./discussion-access.ts";
import type { DiscussionMessagesRepository, MessageWithAuthor } from "./discussion-messages.repository.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";

/** A new message, for those told about it (Web Push): the user ids of the members it went to. */
export interface CreatedDiscussionMessage {
  discussion: Discussion;
  message: DiscussionMessage;
  memberUserIds: string[];
}

const present = (row: MessageWithAuthor) => presentDiscussionMessage(row, { id: row.author_id, display_name: row.author_name });

export function createDiscussionMessagesService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  access: AccessRepository;
  messages: MessagesRepository;
  discussionMessages: DiscussionMessagesRepository;
  discussions: DiscussionsRepository;
  /** Told once about each new message and the device that sent it (push notifications). */
  onCreated?: (from: SessionAuth, created: CreatedDiscussionMessage) => void;
  /** Told once about messages deleted and the members they were deleted for (closing their notifications). */
  onDeleted?: (from: SessionAuth, deleted: { messageIds: string[]; memberUserIds: string[] }) => void;
}) {
  const { clock, unitOfWork, access, messages, discussionMessages: repo, discussions } = deps;

  const memberOf = (userId: string, spaceId: string) => discussionMembership(access, userId, spaceId, clock.now());

  /** What sending an id again answers: the stored message, 409 when it is held elsewhere, 410 once it was deleted. */
  async function resent(userId: string, spaceId: string, id: string): Promise<DiscussionMessage> {
    const stored = await messages.findMessage(id);
    if (stored) {
      const mine = stored.space_id === spaceId && stored.user_id === userId ? await repo.find(spaceId, id) : undefined;
      if (!mine) throw conflict("conflict", "That message id is already in use.");
      return present(mine);
    }
    const swept = await messages.findExpiredMessage(id);
    if (swept) {
      if (swept.space_id === spaceId && swept.user_id === userId) {
        throw messageGone();
      }
      throw conflict("conflict", "That message id is already in use.");
    }
    throw new NotStored();
  }

  return {
    /** The discussion as the caller sees it, with every message, oldest first. */
    async list(userId: string, spaceId: string): Promise<{ discussion: MyDiscussion; messages: DiscussionMessage[] }> {
      await memberOf(userId, spaceId);
      const [mine, rows] = await Promise.all([discussions.findMine(spaceId, userId), repo.list(spaceId)]);
      if (!mine) throw noSuchDiscussion();
      return { discussion: presentMyDiscussion(mine), messages: rows.map(present) };
    },

    /**
     * Stores a message of the caller in the discussion and logs it to every active member, in one transaction.
     * Idempotent by the client's id, like a day's send: the stored message again (created false), 409 for an id in
     * use elsewhere, 410 for one that was deleted.
     */
    async send(from: SessionAuth, spaceId: string, input: SendInput): Promise<{ message: DiscussionMessage; created: boolean }> {
      const now = clock.now();
      const member = await memberOf(from.userId, spaceId);
      assertPlausibleDay(dayKeyOf(input.date), now);
      // Members never see each other's devices: none is stored.
      const row = newMessageRow(input, { spaceId, userId: from.userId, dateMessageId: null, device: null, now });
      return storeOrResend(
        async () => {
          const { event, memberUserIds } = await unitOfWork.forSpace(spaceId, async (work, memberUserIds) => {
            if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
            if ((await messages.in(work.trx).insertMessage(row)) !== "stored") throw new NotStored();
            const discussion = await discussions.in(work.trx).find(spaceId);
            if (!discussion) throw noSuchDiscussion();
            const event = liveEvents.discussionMessageCreated(row, { id: member.memberId, display_name: member.displayName }, discussion);
            await work.record(memberUserIds, { kind: "discussion.message.created", messageId: row.id }, event);
            return { event, memberUserIds };
          });
          deps.onCreated?.(from, { discussion: event.discussion, message: event.message, memberUserIds });
          return { message: event.message, created: true };
        },
        async () => ({ message: await resent(from.userId, spaceId, input.id), created: false }),
      );
    },

    /**
     * Deletes one message for every member: its author or the discussion's creator may. Returns the ids deleted,
     * for the caller to remove the file behind a file message.
     */
    async delete(from: SessionAuth, spaceId: string, messageId: string): Promise<string[]> {
      const now = clock.now();
      const member = await memberOf(from.userId, spaceId);
      const { ids, memberUserIds } = await unitOfWork.forSpace(spaceId, async (work, memberUserIds) => {
        if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
        const locked = messages.in(work.trx);
        const found = await locked.findMessage(messageId);
        if (!found || found.space_id !== spaceId) throw notFound("message");
        if (found.user_id !== from.userId && member.role !== "owner") {
          throw forbidden("Only its author or the discussion's creator can delete this message.");
        }
        const { ids } = await locked.deleteMessages(spaceId, [messageId], now);
        const deleted = { kind: "discussion.messages.deleted", discussionId: spaceId, ids } as const;
        if (ids.length > 0) await work.record(memberUserIds, deleted, liveEvents.discussionMessagesDeleted(deleted));
        return { ids, memberUserIds };
      });
      if (ids.length > 0) deps.onDeleted?.(from, { messageIds: ids, memberUserIds });
      return ids;
    },

    /** The caller's membership of an open discussion, or the 404 (uploads into a discussion ask here). */
    memberOf,
  };
}

export type DiscussionMessagesService = ReturnType<typeof createDiscussionMessagesService>;

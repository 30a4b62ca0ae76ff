/**
 * Messages of a discussion (decision 016): sent, listed and deleted by its members only, each change written
 * to every active member's change log in the transaction that makes it, and published to their connections.
 */
import { API_ERROR_CODES, type Discussion, type DiscussionMessage, dayKeyOf, type MyDiscussion } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { inSpaceTransaction } from "../../db/user-transaction.ts";
import type { ChangesRepository } from "../../events/changes.repository.ts";
import type { EventBus } from "../../events/event-bus.ts";
import { conflict, forbidden, gone, notFound } from "../../http/errors.ts";
import type { SessionAuth } from "../accounts/sessions.repository.ts";
import type { MessagesRepository } from "../messages/messages.repository.ts";
import { assertPlausibleDay, newMessageRow, type SendInput } from "../messages/messages.service.ts";
import type { AccessRepository } from "../spaces/access.repository.ts";
import { presentDiscussion, presentDiscussionMessage, presentMyDiscussion } from "./discussion.presenter.ts";
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

/** The id was taken (or deleted) when the send tried to store it: the transaction rolls back. */
class NotStored extends Error {}

export function createDiscussionMessagesService(deps: {
  db: Db;
  clock: Clock;
  bus: EventBus;
  access: AccessRepository;
  messages: MessagesRepository;
  discussionMessages: DiscussionMessagesRepository;
  discussions: DiscussionsRepository;
  changes: ChangesRepository;
  /** Told once about each new message and the device that sent it (push notifications). */
  onCreated?: (from: SessionAuth, created: CreatedDiscussionMessage) => void;
  /** Told once about messages deleted and the members they were deleted for (closing their notifications). */
  onDeleted?: (from: SessionAuth, deleted: { messageIds: string[]; memberUserIds: string[] }) => void;
}) {
  const { db, clock, bus, access, messages, discussionMessages: repo, discussions, changes } = deps;

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
        throw gone(API_ERROR_CODES.expired, "This message has expired or was deleted.");
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
      for (let attempt = 0; ; attempt++) {
        try {
          const { logged, discussion, memberUserIds } = await inSpaceTransaction(db, spaceId, async (trx, memberUserIds) => {
            if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
            if ((await messages.in(trx).insertMessage(row)) !== "stored") throw new NotStored();
            const logged = await changes.in(trx).appendToUsers(memberUserIds, "discussion.message.created", row.id, now);
            const discussion = await discussions.in(trx).find(spaceId);
            if (!discussion) throw noSuchDiscussion();
            return { logged, discussion: presentDiscussion(discussion), memberUserIds };
          });
          const message = presentDiscussionMessage(row, { id: member.memberId, display_name: member.displayName });
          const event = { kind: "discussion.message.created", message, discussion } as const;
          for (const { userId, seq } of logged) bus.publish("change", { userId, seq, event });
          deps.onCreated?.(from, { discussion, message, memberUserIds });
          return { message, created: true };
        } catch (error) {
          if (!(error instanceof NotStored)) throw error;
          try {
            return { message: await resent(from.userId, spaceId, input.id), created: false };
          } catch (again) {
            // Neither stored nor deleted: taken by a send that rolled back since; try once more.
            if (!(again instanceof NotStored) || attempt > 0) throw again;
          }
        }
      }
    },

    /**
     * Deletes one message for every member: its author or the discussion's creator may. Returns the ids deleted,
     * for the caller to remove the file behind a file message.
     */
    async delete(from: SessionAuth, spaceId: string, messageId: string): Promise<string[]> {
      const now = clock.now();
      const member = await memberOf(from.userId, spaceId);
      const { ids, logged, memberUserIds } = await inSpaceTransaction(db, spaceId, async (trx, memberUserIds) => {
        if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
        const locked = messages.in(trx);
        const found = await locked.findMessage(messageId);
        if (!found || found.space_id !== spaceId) throw notFound("message");
        if (found.user_id !== from.userId && member.role !== "owner") {
          throw forbidden("Only its author or the discussion's creator can delete this message.");
        }
        const { ids } = await locked.deleteMessages(spaceId, [messageId], now);
        const ref = JSON.stringify({ discussion_id: spaceId, ids });
        const logged = ids.length ? await changes.in(trx).appendToUsers(memberUserIds, "discussion.messages.deleted", ref, now) : [];
        return { ids, logged, memberUserIds };
      });
      const event = { kind: "discussion.messages.deleted", discussion_id: spaceId, ids } as const;
      for (const { userId, seq } of logged) bus.publish("change", { userId, seq, event });
      if (ids.length > 0) deps.onDeleted?.(from, { messageIds: ids, memberUserIds });
      return ids;
    },

    /** The caller's membership of an open discussion, or the 404 (uploads into a discussion ask here). */
    memberOf,
  };
}

export type DiscussionMessagesService = ReturnType<typeof createDiscussionMessagesService>;

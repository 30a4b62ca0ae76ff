/**
 * Messages of every space (decision 016): a day is a view of the user's personal space, a discussion is a shared
 * one. Sending (idempotent by the client's id), re-sending, deleting, clearing a day, listing and searching are
 * written once here; who may do what is asked of the policies, and what is only a discussion's (membership's
 * lifetime, roles, extension) stays in discussions.
 */
import { randomUUID } from "node:crypto";
import {
  API_ERROR_CODES,
  DAY_MS,
  type DateMessages,
  type DiscussionMessage,
  dayKeyOf,
  type Message,
  type MyDiscussion,
  type SearchResult,
  type SendMessageInput,
  type SendRoomMessageInput,
  type SendSealedMessageInput,
} from "@daysync/shared";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { MessagesTable } from "../../db/schema.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { SessionAuth } from "../../http/auth.ts";
import { badRequest, conflict, forbidden, gone, notFound } from "../../http/errors.ts";
import { presentDiscussionMessage, presentMyDiscussion } from "../../presenters/discussion.presenter.ts";
import { presentDay, presentMessage } from "../../presenters/messages.presenter.ts";
import type { DiscussionMessagesRepository, DiscussionsRepository, MessageWithAuthor } from "../discussions/index.ts";
import { discussionMembership, noSuchDiscussion } from "../discussions/index.ts";
import type { AccessRepository } from "../spaces/index.ts";
import { deleteUserMessages } from "./message-deletion.ts";
import { cutoffOf, type MessagesRepository } from "./messages.repository.ts";
import { assertSealedForRoom } from "./room-sealed.ts";
import { assertSealedUnderCurrentEpoch, encryptionRequired } from "./sealed-epoch.ts";

/** The device's calendar day must be today somewhere on Earth (UTC-12 to UTC+14). */
export function assertPlausibleDay(dayKey: string, now: number) {
  const dayStart = Date.parse(`${dayKey}T00:00:00Z`);
  if (now < dayStart - 14 * 3600_000 || now > dayStart + DAY_MS + 12 * 3600_000) {
    throw badRequest("date must be today's date on your device.", "date");
  }
}

/** A message as a send asks for it: text by default (in clear, or sealed on the device), or a file message (uploads). */
export type SendInput = (SendMessageInput | SendSealedMessageInput) & {
  type?: Message["type"];
  filename?: string;
  file_url?: string;
  file_size?: number;
  /** A sealed file's sealed key. */
  file_key?: string;
};

const sealedEpochOf = (input: SendInput) => ("epoch" in input ? input.epoch : null);

/** A send into a discussion: as in a day, or sealed under an encrypted discussion's generation (a text, or a file). */
export type DiscussionSendInput =
  | SendInput
  | (SendRoomMessageInput & Pick<SendInput, "type" | "filename" | "file_url" | "file_size" | "file_key">);

/** The row a send stores for a new message, in a day (personal) or a discussion (no day, no device). */
export function newMessageRow(
  input: DiscussionSendInput,
  where: { spaceId: string; userId: string; dateMessageId: string | null; device: { id: string; name: string } | null; now: number },
): MessagesTable {
  if ("generation" in input) {
    const { generation, sender_key_id, preview, ...fields } = input;
    return { ...newMessageRow(fields, where), preview, generation, sender_key_id };
  }
  return {
    id: input.id,
    space_id: where.spaceId,
    user_id: where.userId,
    date_message_id: where.dateMessageId,
    type: input.type ?? "text",
    content: input.content,
    filename: input.filename ?? "",
    file_url: input.file_url ?? "",
    date: input.date,
    time: input.time,
    url: "",
    created_at: where.now,
    file_size: input.file_size ?? null,
    device_id: where.device?.id ?? null,
    device_name: where.device?.name ?? null,
    epoch: sealedEpochOf(input),
    preview: "preview" in input ? input.preview : "",
    file_key: input.file_key ?? "",
  };
}

const presentWithAuthor = (row: MessageWithAuthor) => presentDiscussionMessage(row, { id: row.author_id, display_name: row.author_name });

const idInUse = () => conflict("conflict", "That message id is already in use.");

export function createMessagesService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  messages: MessagesRepository;
  access: AccessRepository;
  discussions: DiscussionsRepository;
  discussionMessages: DiscussionMessagesRepository;
}) {
  const { clock, unitOfWork, messages: repo, access, discussions, discussionMessages } = deps;

  const cutoff = (userId: string) => repo.retentionCutoff(userId, clock.now());
  const memberOf = (userId: string, spaceId: string) => discussionMembership(access, userId, spaceId, clock.now());

  /**
   * What sending an id again answers, in any space: the stored message when the same author sent it into the same
   * space (and it is still live), 409 when the id is held elsewhere, 410 once it expired or was deleted. `NotStored`
   * when nothing holds it any more (the send that held it rolled back): the caller tries again.
   */
  async function resent(userId: string, spaceId: string, id: string, since: number | null): Promise<MessagesTable> {
    const existing = await repo.findMessage(id);
    const swept = existing ? undefined : await repo.findExpiredMessage(id);
    const holder = existing ?? swept;
    if (!holder) throw new NotStored();
    if (holder.space_id !== spaceId || holder.user_id !== userId) throw idInUse();
    if (swept || (existing && since !== null && Number(existing.created_at) < since)) throw messageGone();
    if (!existing) throw new NotStored();
    return existing;
  }

  /** Deletes the user's messages that `pick` chooses in their personal space, in one unit of work. */
  async function removePersonal(
    from: SessionAuth,
    pick: (locked: MessagesRepository, since: number | null, lockedAccess: AccessRepository) => Promise<string[]>,
    clearedDayId?: string,
  ) {
    const now = clock.now();
    return unitOfWork.forUser(
      from.userId,
      async (work) => {
        const locked = repo.in(work.trx);
        const since = await locked.retentionCutoff(from.userId, now);
        return deleteUserMessages(work, locked, from.userId, await pick(locked, since, access.in(work.trx)), now, since, clearedDayId);
      },
      from,
    );
  }

  return {
    async listDays(userId: string): Promise<DateMessages[]> {
      return (await repo.liveDays(userId, await cutoff(userId))).map(presentDay);
    },

    async dayMessages(userId: string, dayId: string): Promise<{ day: DateMessages; messages: Message[] }> {
      const since = await cutoff(userId);
      const [day] = await repo.liveDays(userId, since, [dayId]);
      if (!day) throw notFound("day");
      const messages = await repo.listDayMessages(userId, dayId, since);
      return { day: presentDay(day), messages: messages.map(presentMessage) };
    },

    /** A discussion as the caller sees it, with every message, oldest first. */
    async discussionMessages(userId: string, spaceId: string): Promise<{ discussion: MyDiscussion; messages: DiscussionMessage[] }> {
      await memberOf(userId, spaceId);
      const [mine, rows] = await Promise.all([discussions.findMine(spaceId, userId), discussionMessages.list(spaceId)]);
      if (!mine) throw noSuchDiscussion();
      return { discussion: presentMyDiscussion(mine), messages: rows.map(presentWithAuthor) };
    },

    /** One live message of the user with its day; an expired one is as gone as one that never existed. */
    async findMessage(userId: string, messageId: string): Promise<{ message: Message; day: DateMessages }> {
      const message = await repo.findMessage(messageId);
      const membership = message && (await access.membership(userId, message.space_id, clock.now()));
      if (!message || membership?.kind !== "personal" || !may({ userId }, "space.read", { membership })) throw notFound("message");
      const since = await cutoff(userId);
      if (since !== null && Number(message.created_at) < since) throw notFound("message");
      const [day] = await repo.liveDays(userId, since, [message.date_message_id ?? ""]);
      if (!day) throw notFound("message");
      return { message: presentMessage(message), day: presentDay(day) };
    },

    /**
     * Stores a message of the user's device day and counts it into the day summary, in one transaction.
     * The id comes from the client: sending it again returns the stored message instead of a copy, or 410
     * `expired` once that message is past its retention (swept or not) or was deleted, so a message that is
     * gone is never served again nor stored anew.
     *
     * The common case, a new id, takes five statements and reads nothing it wrote: the user's next seq with
     * their retention, the day's summary upserted, the message inserted, the change logged (and the day's
     * expired-but-unswept messages counted when the day is older than the retention). A known id rolls all of
     * that back and is answered by `resent`.
     */
    async send(from: SessionAuth, input: SendInput): Promise<{ message: Message; day: DateMessages; created: boolean }> {
      const { userId } = from;
      const now = clock.now();
      const dayKey = dayKeyOf(input.date);
      assertPlausibleDay(dayKey, now);
      const message = newMessageRow(input, {
        spaceId: userId,
        userId,
        dateMessageId: "",
        device: { id: from.sessionId, name: from.deviceName },
        now,
      });
      const store = () =>
        unitOfWork.send(async (work) => {
          // The user's row first, as every writer does (`unit-of-work.ts`).
          const claimed = await work.claimSeq(userId);
          if (!claimed) throw notFound("user");
          if (message.epoch !== null) assertSealedUnderCurrentEpoch(message.epoch, claimed);
          else if (claimed.keyEpoch !== null) throw encryptionRequired();
          const since = cutoffOf(claimed.retentionMinutes, now);
          const messages = repo.in(work.trx);
          const stored = await messages.countIntoDay(userId, { id: randomUUID(), date: input.date, dayKey }, message, now);
          message.date_message_id = stored.id;
          if ((await messages.insertMessage(message)) !== "stored") throw new NotStored();
          // Only a day older than the retention can hold expired messages the sweep has not deleted yet.
          const day =
            since !== null && Number(stored.created_at) < since
              ? { ...stored, count_messages: Number(stored.count_messages) - (await messages.countExpiredInDay(stored.id, since)) }
              : stored;
          // One change per message: its event carries the day summary, so no day.upserted goes with it.
          await work.recordClaimed(userId, claimed.seq, { kind: "message.created", messageId: message.id }, { message, day });
          return { message: presentMessage(message), day: presentDay(day) };
        }, from);
      return storeOrResend(
        async () => {
          const stored = await store();
          return { ...stored, created: true };
        },
        async () => {
          const since = await repo.retentionCutoff(userId, now);
          const existing = await resent(userId, userId, input.id, since);
          const [day] = await repo.liveDays(userId, since, [existing.date_message_id ?? ""]);
          if (!day) throw notFound("day");
          return { message: presentMessage(existing), day: presentDay(day), created: false };
        },
      );
    },

    /**
     * Stores a message of the caller in a discussion and logs it to every active member, in one transaction.
     * Idempotent by the client's id, as in a day.
     */
    async sendToDiscussion(
      from: SessionAuth,
      spaceId: string,
      input: DiscussionSendInput,
    ): Promise<{ message: DiscussionMessage; created: boolean }> {
      const now = clock.now();
      const member = await memberOf(from.userId, spaceId);
      if (!may(from, "message.send", { membership: member })) throw noSuchDiscussion();
      assertPlausibleDay(dayKeyOf(input.date), now);
      // Members never see each other's devices: none is stored.
      const row = newMessageRow(input, { spaceId, userId: from.userId, dateMessageId: null, device: null, now });
      return storeOrResend(
        async () => {
          const message = await unitOfWork.forSpace(
            spaceId,
            async (work, memberUserIds) => {
              if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
              // Under the space's lock: a rotation cannot commit between this check and the insert.
              await assertSealedForRoom(discussions.in(work.trx), from.userId, spaceId, input);
              if ((await repo.in(work.trx).insertMessage(row)) !== "stored") throw new NotStored();
              const discussion = await discussions.in(work.trx).find(spaceId);
              if (!discussion) throw noSuchDiscussion();
              const author = { id: member.memberId, display_name: member.displayName };
              await work.record(
                memberUserIds,
                { kind: "discussion.message.created", messageId: row.id },
                { message: row, author, discussion },
              );
              return presentDiscussionMessage(row, author);
            },
            { origin: from },
          );
          return { message, created: true };
        },
        async () => {
          const existing = await resent(from.userId, spaceId, input.id, null);
          const mine = await discussionMessages.find(spaceId, existing.id);
          if (!mine) throw idInUse();
          return { message: presentWithAuthor(mine), created: false };
        },
      );
    },

    /**
     * Deletes one live message of the user's personal space (404 for anyone else's, an unknown or an expired one, as
     * for a read); returns the ids deleted.
     */
    async deleteMessage(from: SessionAuth, messageId: string): Promise<string[]> {
      return removePersonal(from, async (locked, since, lockedAccess) => {
        const message = await locked.findMessage(messageId);
        const membership = message && (await lockedAccess.membership(from.userId, message.space_id, clock.now()));
        if (!message || membership?.kind !== "personal") throw notFound("message");
        if (!may(from, "message.delete", { membership, authorId: message.user_id })) throw notFound("message");
        if (since !== null && Number(message.created_at) < since) throw notFound("message");
        return [message.id];
      });
    },

    /** Deletes every message of one of the user's days (the day itself stays, empty); returns the ids deleted. */
    async clearDay(from: SessionAuth, dayId: string): Promise<string[]> {
      return removePersonal(
        from,
        async (locked, _since, lockedAccess) => {
          // A day is of the personal space, whose id is its owner's.
          const membership = await lockedAccess.membership(from.userId, from.userId, clock.now());
          if (!may(from, "day.clear", { membership })) throw notFound("day");
          const [day] = await locked.liveDays(from.userId, null, [dayId]);
          if (!day) throw notFound("day");
          return locked.dayMessageIds(from.userId, dayId);
        },
        dayId,
      );
    },

    /** Deletes one message of a discussion for every member: its author or the discussion's creator may. */
    async deleteFromDiscussion(from: SessionAuth, spaceId: string, messageId: string): Promise<string[]> {
      const now = clock.now();
      const member = await memberOf(from.userId, spaceId);
      return unitOfWork.forSpace(
        spaceId,
        async (work, memberUserIds) => {
          if (!memberUserIds.includes(from.userId)) throw noSuchDiscussion();
          const locked = repo.in(work.trx);
          const found = await locked.findMessage(messageId);
          if (!found || found.space_id !== spaceId) throw notFound("message");
          if (!may(from, "message.delete", { membership: member, authorId: found.user_id })) {
            throw forbidden("Only its author or the discussion's creator can delete this message.");
          }
          const { ids } = await locked.deleteMessages(spaceId, [messageId], now);
          const deleted = { kind: "discussion.messages.deleted", discussionId: spaceId, ids } as const;
          if (ids.length > 0) await work.record(memberUserIds, deleted);
          return ids;
        },
        { origin: from },
      );
    },

    async search(userId: string, text: string): Promise<SearchResult[]> {
      const since = await cutoff(userId);
      const messages = await repo.searchMessages(userId, text, since, 50);
      const days = await repo.liveDays(userId, since, [...new Set(messages.flatMap((m) => m.date_message_id ?? []))]);
      const dayById = new Map(days.map((d) => [d.id, presentDay(d)]));
      return messages.flatMap((m) => {
        const day = dayById.get(m.date_message_id ?? "");
        return day ? [{ message: presentMessage(m), day }] : [];
      });
    },

    /**
     * A page of the user's live personal messages, newest first, starting just before `before` (a live message of
     * theirs, or 404); devices page through them to search what the server cannot read.
     */
    async page(userId: string, before: string | undefined, limit: number): Promise<{ messages: Message[]; next: string | null }> {
      const since = await cutoff(userId);
      let after: MessagesTable | undefined;
      if (before !== undefined) {
        after = await repo.findMessage(before);
        const live = after && after.space_id === userId && (since === null || Number(after.created_at) >= since);
        if (!live) throw notFound("message");
      }
      const rows = await repo.pageMessages(userId, since, after, limit + 1);
      const page = rows.slice(0, limit);
      return { messages: page.map(presentMessage), next: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
    },

    /** The caller's membership of an open discussion, or the 404 (uploads into a discussion ask here). */
    memberOf,
  };
}

/** The id was taken (or swept, or deleted) when a send tried to store it: its transaction rolls back. */
export class NotStored extends Error {}

/**
 * A send by the client's id, new or retried, in a day or a discussion: `store` throws `NotStored` when the id is
 * already held, and `resend` then answers from what holds it; when that throws `NotStored` too (the send that held
 * it rolled back since), the whole is tried once more.
 */
export async function storeOrResend<S, R>(store: () => Promise<S>, resend: () => Promise<R>): Promise<S | R> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await store();
    } catch (error) {
      if (!(error instanceof NotStored)) throw error;
      try {
        return await resend();
      } catch (again) {
        if (!(again instanceof NotStored) || attempt > 0) throw again;
      }
    }
  }
}

/** What a resend of a message that expired or was deleted answers, in a day or a discussion: 410, never the old text. */
export const messageGone = () => gone(API_ERROR_CODES.expired, "This message has expired or was deleted.");

export type MessagesService = ReturnType<typeof createMessagesService>;

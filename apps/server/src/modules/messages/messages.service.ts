/** Days and messages of one user: sending (idempotent, one transaction), reading within retention, search. */
import { randomUUID } from "node:crypto";
import {
  API_ERROR_CODES,
  DAY_MS,
  type DateMessages,
  dayKeyOf,
  type Message,
  type SearchResult,
  type SendMessageInput,
} from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { DateMessagesTable, MessagesTable } from "../../db/schema.ts";
import type { ChangesRepository } from "../../feed/changes.repository.ts";
import { liveEvents } from "../../feed/events.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import { badRequest, conflict, gone, notFound } from "../../http/errors.ts";
import { deleteUserMessages } from "./message-deletion.ts";
import { presentDay, presentMessage } from "./messages.presenter.ts";
import { cutoffOf, type MessagesRepository } from "./messages.repository.ts";

/** The device's calendar day must be today somewhere on Earth (UTC-12 to UTC+14). */
export function assertPlausibleDay(dayKey: string, now: number) {
  const dayStart = Date.parse(`${dayKey}T00:00:00Z`);
  if (now < dayStart - 14 * 3600_000 || now > dayStart + DAY_MS + 12 * 3600_000) {
    throw badRequest("date must be today's date on your device.", "date");
  }
}

/** A message as a send asks for it: text by default, or a file message (uploads). */
export type SendInput = SendMessageInput & { type?: Message["type"]; filename?: string; file_url?: string };

/** The row a send stores for a new message, in a day (personal) or a discussion (no day, no device). */
export function newMessageRow(
  input: SendInput,
  where: { spaceId: string; userId: string; dateMessageId: string | null; device: { id: string; name: string } | null; now: number },
): MessagesTable {
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
    device_id: where.device?.id ?? null,
    device_name: where.device?.name ?? null,
  };
}

export function createMessagesService(deps: {
  clock: Clock;
  unitOfWork: UnitOfWork;
  messages: MessagesRepository;
  changes: ChangesRepository;
}) {
  const { clock, unitOfWork, messages: repo, changes } = deps;

  const cutoff = (userId: string) => repo.retentionCutoff(userId, clock.now());

  /** What sending an id again answers: the stored message, 409 when it is another user's, 410 once it expired. */
  async function resent(userId: string, id: string, now: number): Promise<{ message: MessagesTable; day: DateMessagesTable }> {
    const existing = await repo.findMessage(id);
    const swept = existing ? undefined : await repo.findExpiredMessage(id);
    // The personal space's id is the user's: an id held in any other space is someone else's.
    const space = existing?.space_id ?? swept?.space_id;
    if (space !== undefined && space !== userId) throw conflict("conflict", "That message id is already in use.");
    const since = await repo.retentionCutoff(userId, now);
    if (swept || (existing && since !== null && Number(existing.created_at) < since)) {
      throw messageGone();
    }
    // Neither stored nor swept: taken by a send that rolled back since; the caller tries again.
    if (!existing) throw new NotStored();
    const [day] = await repo.liveDays(userId, since, [existing.date_message_id ?? ""]);
    if (!day) throw notFound("day");
    return { message: existing, day };
  }

  /** Deletes the messages `pick` chooses, in one transaction with the day summaries and the change log. */
  async function remove(userId: string, pick: (locked: MessagesRepository, since: number | null) => Promise<string[]>): Promise<string[]> {
    const now = clock.now();
    return unitOfWork.forUser(userId, async (work) => {
      const locked = repo.in(work.trx);
      const since = await locked.retentionCutoff(userId, now);
      return deleteUserMessages(work, locked, userId, await pick(locked, since), now, since);
    });
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

    /** One live message of the user with its day; an expired one is as gone as one that never existed. */
    async findMessage(userId: string, messageId: string): Promise<{ message: Message; day: DateMessages }> {
      const message = await repo.findMessage(messageId);
      if (!message || message.space_id !== userId) throw notFound("message");
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
    async send(
      userId: string,
      input: SendInput,
      /** The sending device (session), named as the cached session lookup has it: no query of its own. */
      device: { id: string; name: string },
    ): Promise<{ message: Message; day: DateMessages; created: boolean }> {
      const now = clock.now();
      const dayKey = dayKeyOf(input.date);
      assertPlausibleDay(dayKey, now);
      const message = newMessageRow(input, { spaceId: userId, userId, dateMessageId: "", device, now });
      const store = () =>
        unitOfWork.send(async (work) => {
          // The user's row first, as every writer does (`unit-of-work.ts`).
          const claimed = await changes.in(work.trx).nextSeqAndRetention(userId);
          if (!claimed) throw notFound("user");
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
          const event = liveEvents.messageCreated(message, day);
          await work.recordClaimed(userId, claimed.seq, { kind: "message.created", messageId: message.id }, event);
          return event;
        });
      return storeOrResend(
        async () => {
          const event = await store();
          return { message: event.message, day: event.day, created: true };
        },
        async () => {
          const { message: existing, day } = await resent(userId, input.id, now);
          return { message: presentMessage(existing), day: presentDay(day), created: false };
        },
      );
    },

    /**
     * Deletes one live message of the user (404 for anyone else's, an unknown or an expired one, as for a read);
     * returns the ids deleted, for the caller to remove what hangs off them (files, notifications).
     */
    async deleteMessage(userId: string, messageId: string): Promise<string[]> {
      return remove(userId, async (locked, since) => {
        const message = await locked.findMessage(messageId);
        if (!message || message.space_id !== userId) throw notFound("message");
        if (since !== null && Number(message.created_at) < since) throw notFound("message");
        return [message.id];
      });
    },

    /** Deletes every message of one of the user's days (the day itself stays, empty); returns the ids deleted. */
    async clearDay(userId: string, dayId: string): Promise<string[]> {
      return remove(userId, async (locked) => {
        const [day] = await locked.liveDays(userId, null, [dayId]);
        if (!day) throw notFound("day");
        return locked.dayMessageIds(userId, dayId);
      });
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

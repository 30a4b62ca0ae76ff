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
import type { Db } from "../../db/database.ts";
import type { MessagesTable } from "../../db/schema.ts";
import { inUserTransaction } from "../../db/user-transaction.ts";
import { appendChange } from "../../events/changes.repository.ts";
import type { EventBus, UserChange } from "../../events/event-bus.ts";
import { badRequest, conflict, gone, notFound } from "../../http/errors.ts";
import { presentDay, presentMessage } from "./messages.presenter.ts";
import * as repo from "./messages.repository.ts";

/** The device's calendar day must be today somewhere on Earth (UTC-12 to UTC+14). */
export function assertPlausibleDay(dayKey: string, now: number) {
  const dayStart = Date.parse(`${dayKey}T00:00:00Z`);
  if (now < dayStart - 14 * 3600_000 || now > dayStart + DAY_MS + 12 * 3600_000) {
    throw badRequest("date must be today's date on your device.", "date");
  }
}

export function createMessagesService(deps: { db: Db; clock: Clock; bus: EventBus }) {
  const { db, clock, bus } = deps;

  const cutoff = (userId: string) => repo.retentionCutoff(db, userId, clock.now());

  return {
    async listDays(userId: string): Promise<DateMessages[]> {
      return (await repo.liveDays(db, userId, await cutoff(userId))).map(presentDay);
    },

    async dayMessages(userId: string, dayId: string): Promise<{ day: DateMessages; messages: Message[] }> {
      const since = await cutoff(userId);
      const [day] = await repo.liveDays(db, userId, since, [dayId]);
      if (!day) throw notFound("day");
      const messages = await repo.listDayMessages(db, userId, dayId, since);
      return { day: presentDay(day), messages: messages.map(presentMessage) };
    },

    /** One live message of the user with its day; an expired one is as gone as one that never existed. */
    async findMessage(userId: string, messageId: string): Promise<{ message: Message; day: DateMessages }> {
      const message = await repo.findMessage(db, messageId);
      if (!message || message.user_id !== userId) throw notFound("message");
      const since = await cutoff(userId);
      if (since !== null && Number(message.created_at) < since) throw notFound("message");
      const [day] = await repo.liveDays(db, userId, since, [message.date_message_id]);
      if (!day) throw notFound("message");
      return { message: presentMessage(message), day: presentDay(day) };
    },

    /**
     * Stores a message of the user's device day and counts it into the day summary, in one transaction.
     * The id comes from the client: sending it again returns the stored message instead of a copy, or 410
     * `expired` once that message is past its retention (swept or not), so an expired message is never
     * served again nor stored anew.
     */
    async send(
      userId: string,
      input: SendMessageInput & { type?: MessageRowType; filename?: string; file_url?: string },
    ): Promise<{ message: Message; day: DateMessages; created: boolean }> {
      const now = clock.now();
      const dayKey = dayKeyOf(input.date);
      assertPlausibleDay(dayKey, now);
      const changes: UserChange[] = [];
      const store = () =>
        inUserTransaction(db, userId, async (trx) => {
          const since = await repo.retentionCutoff(trx, userId, now);
          const existing = await repo.findMessage(trx, input.id);
          const swept = existing ? undefined : await repo.findExpiredMessage(trx, input.id);
          const owner = existing?.user_id ?? swept?.user_id;
          if (owner !== undefined && owner !== userId) throw conflict("conflict", "That message id is already in use.");
          if (swept || (existing && since !== null && Number(existing.created_at) < since)) {
            throw gone(API_ERROR_CODES.expired, "This message has expired.");
          }
          if (existing) {
            const [day] = await repo.liveDays(trx, userId, since, [existing.date_message_id]);
            if (!day) throw notFound("day");
            return { message: existing, day, created: false };
          }
          const dayBefore = await repo.ensureDay(trx, userId, input.date, dayKey, randomUUID(), now);
          const message: MessagesTable = {
            id: input.id,
            user_id: userId,
            date_message_id: dayBefore.id,
            type: input.type ?? "text",
            content: input.content,
            filename: input.filename ?? "",
            file_url: input.file_url ?? "",
            date: input.date,
            time: input.time,
            url: "",
            created_at: now,
          };
          // The id may have been taken since the look-up, by another user's send: roll back and answer as for a stored id.
          if (!(await repo.insertMessage(trx, message))) throw new IdTakenMeanwhile();
          const day = await repo.addToDaySummary(trx, dayBefore.id, message, now, since);
          // One change per message: its event carries the day summary, so no day.upserted goes with it.
          const seq = await appendChange(trx, userId, "message.created", message.id, now);
          changes.push({ userId, seq, event: { kind: "message.created", message: presentMessage(message), day: presentDay(day) } });
          return { message, day, created: true };
        });
      const result = await store().catch((error: unknown) => {
        if (error instanceof IdTakenMeanwhile) return store();
        throw error;
      });
      for (const change of changes) bus.publish("change", change);
      return { message: presentMessage(result.message), day: presentDay(result.day), created: result.created };
    },

    async search(userId: string, text: string): Promise<SearchResult[]> {
      const since = await cutoff(userId);
      const messages = await repo.searchMessages(db, userId, text, since, 50);
      const days = await repo.liveDays(db, userId, since, [...new Set(messages.map((m) => m.date_message_id))]);
      const dayById = new Map(days.map((d) => [d.id, presentDay(d)]));
      return messages.flatMap((m) => {
        const day = dayById.get(m.date_message_id);
        return day ? [{ message: presentMessage(m), day }] : [];
      });
    },
  };
}

type MessageRowType = Message["type"];

class IdTakenMeanwhile extends Error {}

export type MessagesService = ReturnType<typeof createMessagesService>;

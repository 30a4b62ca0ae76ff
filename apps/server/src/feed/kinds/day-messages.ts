/** The kinds of change of a user's own days and their messages. */
import { z } from "zod";
import type { DateMessagesTable, MessagesTable } from "../../db/schema.ts";
import { presentDay, presentMessage } from "../../presenters/messages.presenter.ts";
import { defineKind, type EventOf, nothingToLoad } from "./kind.ts";

const ids = z.array(z.string());

/** Parses a ref that is JSON; undefined when it is not. */
export function jsonRef(ref: string): unknown {
  try {
    return JSON.parse(ref) as unknown;
  } catch {
    return undefined;
  }
}

const dayUpserted = defineKind<"day.upserted", DateMessagesTable>("day.upserted", {
  ref: (change) => change.dayId,
  parse: (ref, kind) => ({ kind, dayId: ref }),
  access: "own",
  load: async (change, reads) => (await reads.day(change.dayId)) ?? null,
  present: (_change, day) => ({ kind: "day.upserted", day: presentDay(day) }),
});

/** `day`: the message's day summary with the message counted in. `expired`: only on a replay, its day is shown instead. */
interface CreatedFacts {
  message: MessagesTable;
  day: DateMessagesTable;
  expired?: boolean;
}

const messageCreated = defineKind<"message.created", CreatedFacts, EventOf<"message.created" | "day.upserted">>("message.created", {
  ref: (change) => change.messageId,
  parse: (ref, kind) => ({ kind, messageId: ref }),
  access: { space: (_change, { message }) => message.space_id },
  async load(change, reads) {
    const message = await reads.message(change.messageId);
    if (!message || message.date_message_id === null) return null;
    const day = await reads.day(message.date_message_id);
    if (!day) return null;
    const since = await reads.cutoff();
    // Expired but not yet swept: the message is not served, its day's summary (without it) still is.
    return { message, day, expired: since !== null && Number(message.created_at) < since };
  },
  present: (_change, { message, day, expired }) =>
    expired
      ? { kind: "day.upserted", day: presentDay(day) }
      : { kind: "message.created", message: presentMessage(message), day: presentDay(day) },
});

const messagesDeleted = defineKind("messages.deleted", {
  ref: (change) => JSON.stringify(change.ids),
  parse(ref, kind) {
    const parsed = ids.safeParse(jsonRef(ref));
    return parsed.success ? { kind, ids: parsed.data } : undefined;
  },
  access: "own",
  load: nothingToLoad,
  present: (change) => ({ kind: "messages.deleted", ids: change.ids }),
});

export const dayMessageKinds = {
  "day.upserted": dayUpserted,
  "message.created": messageCreated,
  "messages.deleted": messagesDeleted,
};

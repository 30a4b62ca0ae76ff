/**
 * `daysync search`: this terminal pages through the live messages, opens the sealed ones and matches them itself
 * (docs/protocol/encryption.md, "Sealed messages"). The words searched for never go to the server: they say what was sent.
 */
import {
  API,
  type DateMessages,
  formatDisplayDate,
  MESSAGES_PAGE_MAX,
  type Message,
  responseSchemas,
  searchQuerySchema,
} from "@daysync/shared";
import type { z } from "zod";
import type { ApiClient } from "../api-client.ts";
import type { Context } from "../context.ts";
import { usageError } from "../errors.ts";
import { describeMessage, printJson, printTable } from "../format.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { type ShownDay, type ShownMessage, showDay, showMessage } from "../sealing/shown-messages.ts";
import { say } from "../terminal-text.ts";

/** One result as `search --json` prints it: the message and its day, both opened. */
export interface FoundMessage {
  message: ShownMessage;
  day: ShownDay;
}

const PAGE = MESSAGES_PAGE_MAX;
type MessagesPage = z.infer<typeof responseSchemas.messagesPage>;

export async function search(ctx: Context, words: string[], options: { json?: boolean }): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api } = signedIn;
  const query = searchQuerySchema.safeParse({ q: words.join(" ") });
  if (!query.success) throw usageError(query.error.issues[0]?.message ?? "Type something to search for.");
  const [{ days }, keys] = await Promise.all([api.get(API.days, responseSchemas.days), MessageKeys.load(signedIn, ctx.store)]);
  const matches = await textMatches(api, keys, query.data.q);
  const dayOf = new Map<string, DateMessages>(days.map((day) => [day.id, day]));
  const shownDays = new Map<string, Promise<ShownDay>>();
  const found: FoundMessage[] = [];
  for (const message of matches.sort(newestFirst)) {
    const day = dayOf.get(message.date_message_id);
    if (!day) continue;
    let shownDay = shownDays.get(day.id);
    if (!shownDay) {
      shownDay = showDay(keys, day);
      shownDays.set(day.id, shownDay);
    }
    found.push({ message, day: await shownDay });
  }
  if (options.json) return printJson(found);
  if (found.length === 0) return say(`Nothing found for "${query.data.q}".`);
  printTable(
    ["DATE", "TIME", "ID", "CONTENT"],
    found.map(({ message }) => [formatDisplayDate(message.date), message.time, message.id, describeMessage(message)]),
  );
}

/** The text messages whose text (opened, when sealed) contains `q`, whatever the case, from every page of live messages. */
async function textMatches(api: ApiClient, keys: MessageKeys, q: string): Promise<ShownMessage[]> {
  const needle = q.toLowerCase();
  const matches: ShownMessage[] = [];
  let before: string | null = null;
  do {
    const params: URLSearchParams = new URLSearchParams({ limit: String(PAGE), ...(before ? { before } : {}) });
    const page: MessagesPage = await api.get(`${API.messages}?${params}`, responseSchemas.messagesPage);
    for (const message of page.messages) {
      if (message.type !== "text") continue;
      const shown = await showMessage(keys, message);
      if (!shown.error && shown.content.toLowerCase().includes(needle)) matches.push(shown);
    }
    before = page.next;
  } while (before);
  return matches;
}

const newestFirst = (a: Message, b: Message) => b.timestamps - a.timestamps || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

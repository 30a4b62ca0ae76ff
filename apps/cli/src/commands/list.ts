/** `daysync ls` and `daysync days`: what is on the server, opened on this terminal, as a table or as JSON. */
import {
  API,
  DELETION_NOTES_API,
  deletionNotesSchema,
  formatDisplayDate,
  formatStoredDate,
  type Message,
  responseSchemas,
} from "@daysync/shared";
import { type ApiClient, ApiError } from "../api-client.ts";
import type { Context } from "../context.ts";
import { usageError } from "../errors.ts";
import { describeMessage, expiresAt, formatBytes, parseDisplayDate, preview, printJson, printTable, timeLeftLabel } from "../format.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { assertAllOpened, plainFileSize, type ShownMessage, showDay, showMessage } from "../sealing/shown-messages.ts";
import { say, warn } from "../terminal-text.ts";

/**
 * A message as `ls --json` prints it: the API's message with its text opened (or `error`), its size in bytes and
 * when it disappears (null: never).
 */
export type ListedMessage = ShownMessage & { size: number | null; expires_at: number | null };

export async function listDay(ctx: Context, options: { day?: string; json?: boolean }): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api } = signedIn;
  const date = options.day === undefined ? formatStoredDate(new Date()) : parseDisplayDate(options.day);
  if (!date) throw usageError(`"${options.day}" is not a date: write it as DD/MM/YYYY, for example 24/11/2026.`);
  const [{ days }, { user }, keys] = await Promise.all([
    api.get(API.days, responseSchemas.days),
    api.get(API.me, responseSchemas.user),
    MessageKeys.load(signedIn, ctx.store),
  ]);
  const day = days.find((d) => d.date === date);
  const messages = day ? (await api.get(API.dayMessages(day.id), responseSchemas.dayMessages)).messages : [];
  const shown = await Promise.all(messages.map((m) => showMessage(keys, m)));
  const sizes = await Promise.all(shown.map((m) => sizeOf(api, m)));
  const listed: ListedMessage[] = shown.map((m, i) => ({
    ...m,
    size: sizes[i] ?? null,
    expires_at: expiresAt(m, user.max_message_duration),
  }));
  if (options.json) printJson(listed);
  else if (listed.length === 0) say(`No messages on ${formatDisplayDate(date)}.`);
  else {
    const now = Date.now();
    printTable(
      ["TIME", "FROM", "TYPE", "SIZE", "LEFT", "ID", "CONTENT"],
      listed.map((m) => [
        m.time,
        m.device?.name ?? "",
        m.type,
        m.size === null ? "?" : formatBytes(m.size),
        timeLeftLabel(m.expires_at, now),
        m.id,
        describeMessage(m),
      ]),
    );
  }
  await tellGaps(api, keys, { date, messages, retentionMinutes: user.max_message_duration });
  assertAllOpened(listed);
}

/** On stderr: the day's messages that one of the person's devices numbered and that did not arrive. */
async function tellGaps(api: ApiClient, keys: MessageKeys, day: { date: string; messages: Message[]; retentionMinutes: number | null }) {
  const numbered = await keys.numbered(day.messages);
  if (numbered.length === 0) return;
  // A server that keeps no notes (404) has no deletions to excuse: the gaps are still said.
  const notes = await api
    .get(`${DELETION_NOTES_API.notes}?date=${encodeURIComponent(day.date)}`, deletionNotesSchema)
    .then((answer) => answer.notes)
    .catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return [];
      throw error;
    });
  const gaps = await keys.gaps({ date: day.date, numbered, notes }, { retentionMinutes: day.retentionMinutes, now: Date.now() });
  for (const gap of gaps) {
    const before = day.messages.find((m) => m.id === gap.before);
    warn(`${gap.notice}, before the message of ${before?.time ?? "?"} (${gap.before}).`);
  }
}

/**
 * A text's size in UTF-8 (unknown when it did not open); a file's from the download's Content-Length (null if the
 * server does not say), in plain bytes for a sealed file.
 */
async function sizeOf(api: ApiClient, message: ShownMessage): Promise<number | null> {
  if (message.type === "text") return message.error ? null : Buffer.byteLength(message.content);
  try {
    const res = await api.fetch("HEAD", message.file_url);
    const length = Number(res.headers.get("content-length"));
    if (!Number.isSafeInteger(length)) return null;
    return message.epoch === undefined ? length : (plainFileSize(length) ?? null);
  } catch {
    return null;
  }
}

export async function listDays(ctx: Context, options: { json?: boolean }): Promise<void> {
  const signedIn = await ctx.signedIn();
  const [{ days }, keys] = await Promise.all([signedIn.api.get(API.days, responseSchemas.days), MessageKeys.load(signedIn, ctx.store)]);
  const shown = await Promise.all(days.map((day) => showDay(keys, day)));
  if (options.json) printJson(shown);
  else if (shown.length === 0) say("No days yet.");
  else {
    printTable(
      ["DATE", "MESSAGES", "LAST", "LAST MESSAGE"],
      shown.map((d) => [formatDisplayDate(d.date), String(d.count_messages), d.last_message_time, d.error ?? preview(d.last_message)]),
    );
  }
  assertAllOpened(shown);
}

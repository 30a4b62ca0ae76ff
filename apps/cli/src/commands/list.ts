/** `daysync ls`, `daysync days` and `daysync search`: what is on the server, as a table or as JSON. */
import { API, formatDisplayDate, formatStoredDate, type Message, responseSchemas, searchQuerySchema } from "@daysync/shared";
import type { ApiClient } from "../api-client.ts";
import type { Context } from "../context.ts";
import { usageError } from "../errors.ts";
import { describeMessage, expiresAt, formatBytes, parseDisplayDate, preview, printJson, printTable, timeLeftLabel } from "../format.ts";

/** A message as `ls --json` prints it: the API's message, its size in bytes and when it disappears (null: never). */
export type ListedMessage = Message & { size: number | null; expires_at: number | null };

export async function listDay(ctx: Context, options: { day?: string; json?: boolean }): Promise<void> {
  const { api } = await ctx.signedIn();
  const date = options.day === undefined ? formatStoredDate(new Date()) : parseDisplayDate(options.day);
  if (!date) throw usageError(`"${options.day}" is not a date: write it as DD/MM/YYYY, for example 24/11/2026.`);
  const [{ days }, { user }] = await Promise.all([api.get(API.days, responseSchemas.days), api.get(API.me, responseSchemas.user)]);
  const day = days.find((d) => d.date === date);
  const messages = day ? (await api.get(API.dayMessages(day.id), responseSchemas.dayMessages)).messages : [];
  const sizes = await Promise.all(messages.map((m) => sizeOf(api, m)));
  const listed: ListedMessage[] = messages.map((m, i) => ({
    ...m,
    size: sizes[i] ?? null,
    expires_at: expiresAt(m, user.max_message_duration),
  }));
  if (options.json) return printJson(listed);
  if (listed.length === 0) return console.log(`No messages on ${formatDisplayDate(date)}.`);
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

/** A text's size in UTF-8; a file's from the download's Content-Length (null if the server does not say). */
async function sizeOf(api: ApiClient, message: Message): Promise<number | null> {
  if (message.type === "text") return Buffer.byteLength(message.content);
  try {
    const res = await api.fetch("HEAD", message.file_url);
    const length = Number(res.headers.get("content-length"));
    return Number.isSafeInteger(length) ? length : null;
  } catch {
    return null;
  }
}

export async function listDays(ctx: Context, options: { json?: boolean }): Promise<void> {
  const { api } = await ctx.signedIn();
  const { days } = await api.get(API.days, responseSchemas.days);
  if (options.json) return printJson(days);
  if (days.length === 0) return console.log("No days yet.");
  printTable(
    ["DATE", "MESSAGES", "LAST", "LAST MESSAGE"],
    days.map((d) => [formatDisplayDate(d.date), String(d.count_messages), d.last_message_time, preview(d.last_message)]),
  );
}

export async function search(ctx: Context, words: string[], options: { json?: boolean }): Promise<void> {
  const { api } = await ctx.signedIn();
  const query = searchQuerySchema.safeParse({ q: words.join(" ") });
  if (!query.success) throw usageError(query.error.issues[0]?.message ?? "Type something to search for.");
  const { results } = await api.get(`${API.search}?${new URLSearchParams(query.data)}`, responseSchemas.search);
  if (options.json) return printJson(results);
  if (results.length === 0) return console.log(`Nothing found for "${query.data.q}".`);
  printTable(
    ["DATE", "TIME", "ID", "CONTENT"],
    results.map(({ message }) => [formatDisplayDate(message.date), message.time, message.id, describeMessage(message)]),
  );
}

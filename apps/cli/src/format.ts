/** How the command line shows things: sizes, dates, columns, and JSON for scripts. */
import { formatTimeLeft, type Message, parseStoredDate } from "@daysync/shared";
import type { ShownMessage } from "./sealing/shown-messages.ts";
import { forTerminal, say } from "./terminal-text.ts";

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? +value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/**
 * One JSON document per line: what scripts read (`--json`). The exact values, with DEL and the C1 controls written
 * as \u escapes too (JSON.stringify escapes only C0), so the line is also safe in a terminal.
 */
export function printJson(value: unknown): void {
  process.stdout.write(
    `${JSON.stringify(value).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`,
  );
}

/** Columns padded to their widest cell; the last column is not padded. Cells come from other devices: no control passes. */
export function printTable(header: string[], cells: string[][]): void {
  const rows = cells.map((row) => row.map((cell) => forTerminal(cell)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  say(line(header));
  for (const row of rows) say(line(row));
}

/** The first line of a text, cut to `max` characters, for a one-line listing. */
export function preview(text: string, max = 60): string {
  const first = text.split(/\r?\n/, 1)[0] ?? "";
  const more = first.length < text.trimEnd().length;
  return first.length > max ? `${first.slice(0, max - 1)}…` : more ? `${first} …` : first;
}

/** What a message is in one line: its text, its file name, or why it cannot be read. */
export const describeMessage = (message: ShownMessage) =>
  message.error ?? (message.type === "text" ? preview(message.content) : message.filename);

/** When a message disappears (ms since the epoch), or null when the plan keeps it without limit. */
export function expiresAt(message: Message, retentionMinutes: number | null): number | null {
  return retentionMinutes === null ? null : message.timestamps + retentionMinutes * 60_000;
}

export const timeLeftLabel = (expires: number | null, now: number) => (expires === null ? "unlimited" : formatTimeLeft(expires - now));

/** "dd/MM/yyyy" typed by a person → the stored "M/d/yyyy", or null when it is not a date. */
export function parseDisplayDate(text: string): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text.trim());
  if (!m) return null;
  const stored = `${Number(m[2])}/${Number(m[1])}/${m[3]}`;
  return parseStoredDate(stored) ? stored : null;
}

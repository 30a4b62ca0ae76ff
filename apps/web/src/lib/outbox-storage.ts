/**
 * What the outbox keeps in localStorage per user (lib/outbox.ts): the messages not yet confirmed and the deletions not
 * yet sent, read back with a check of each item, as another tab or an older version of the app may have written them.
 */
import type { SendMessageInput } from "@daysync/shared";
import { readStorage } from "./storage.ts";

export interface OutboxEntry extends SendMessageInput {
  /** Set for a message to a discussion; without it the message goes to the user's own day. */
  discussionId?: string;
  /** When it was typed, ms since the epoch. */
  createdAt: number;
  /** Set when the server refused it for good (not a connection problem). */
  error?: string;
  /** Why it is still waiting when the server asked to slow down (a 429's message); it is retried. */
  notice?: string;
}

/** A message the user deleted: hidden here at once, deleted on the server once `holdUntil` has passed. */
export interface PendingDelete {
  id: string;
  /** Set for a message of a discussion. */
  discussionId?: string;
  /** Until then (ms since the epoch) it can be undone; 0 once released. */
  holdUntil: number;
}

export const entriesKey = (userId: string) => `daysync:outbox:${userId}`;
export const deletesKey = (userId: string) => `daysync:outbox-deletes:${userId}`;

export function isPendingDelete(value: unknown): value is PendingDelete {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === "string" && typeof v.holdUntil === "number" && (v.discussionId === undefined || typeof v.discussionId === "string")
  );
}

export function isEntry(value: unknown): value is OutboxEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === "string" &&
    typeof v.content === "string" &&
    typeof v.date === "string" &&
    typeof v.time === "string" &&
    typeof v.createdAt === "number" &&
    (v.discussionId === undefined || typeof v.discussionId === "string")
  );
}

/** A list kept in storage under `key`; with nothing stored yet, or storage unavailable, this tab's copy is the truth. */
export function readStoredList<T>(key: string, current: readonly T[], isItem: (value: unknown) => value is T): T[] {
  const raw = readStorage(key);
  if (raw === null) return [...current];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter(isItem) : [];
  } catch {
    return [];
  }
}

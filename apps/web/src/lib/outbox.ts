/**
 * Text messages not yet confirmed by the server. Kept in localStorage per user so a reload,
 * a crash or a lost connection never loses them; sent oldest first with the client's id, so a
 * retry (or two tabs sending the same entry) never duplicates.
 */
import { API, API_ERROR_CODES, responseSchemas, type SendMessageInput } from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import { ApiError, api } from "./api-client.ts";
import { describeError, isTransientError } from "./api-errors.ts";
import { applySavedMessage, removeMessages } from "./cache-updates.ts";
import { queryKeys } from "./query-keys.ts";
import { readStorage, writeStorage } from "./storage.ts";

export interface OutboxEntry extends SendMessageInput {
  /** When it was typed, ms since the epoch. */
  createdAt: number;
  /** Set when the server refused it for good (not a connection problem). */
  error?: string;
  /** Why it is still waiting when the server asked to slow down (a 429's message); it is retried. */
  notice?: string;
}

const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 30_000;

const storageKey = (userId: string) => `daysync:outbox:${userId}`;

function isEntry(value: unknown): value is OutboxEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === "string" &&
    typeof v.content === "string" &&
    typeof v.date === "string" &&
    typeof v.time === "string" &&
    typeof v.createdAt === "number"
  );
}

export class Outbox {
  private entries: readonly OutboxEntry[] = [];
  private readonly listeners = new Set<() => void>();
  private flushing: Promise<void> | null = null;
  private again = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryAttempt = 0;
  private started = false;

  constructor(
    private readonly userId: string,
    private readonly queryClient: QueryClient,
  ) {
    this.entries = this.read();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    window.addEventListener("storage", this.handleStorage);
    window.addEventListener("online", this.handleOnline);
    void this.flush();
  }

  stop(): void {
    this.started = false;
    window.removeEventListener("storage", this.handleStorage);
    window.removeEventListener("online", this.handleOnline);
    clearTimeout(this.retryTimer);
  }

  getEntries = (): readonly OutboxEntry[] => this.entries;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Keeps the message first, then tries to send it. */
  enqueue(input: SendMessageInput): void {
    const entry: OutboxEntry = { ...input, createdAt: Date.now() };
    this.update((entries) => [...entries, entry]);
    void this.flush();
  }

  retry(id: string): void {
    this.update((entries) => entries.map((e) => (e.id === id ? { ...e, error: undefined } : e)));
    void this.flush();
  }

  discard(id: string): void {
    this.update((entries) => entries.filter((e) => e.id !== id));
  }

  /** Sends every waiting entry, oldest first; one run at a time, re-run if asked meanwhile. */
  flush(): Promise<void> {
    if (!this.started) return Promise.resolve();
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    clearTimeout(this.retryTimer);
    this.flushing = this.run().finally(() => {
      this.flushing = null;
      if (this.again) {
        this.again = false;
        void this.flush();
      }
    });
    return this.flushing;
  }

  private async run(): Promise<void> {
    for (;;) {
      const next = this.read().find((e) => !e.error);
      if (!next || !this.started) return;
      try {
        const { message, day } = await api.post(
          API.messages,
          {
            id: next.id,
            content: next.content,
            date: next.date,
            time: next.time,
          } satisfies SendMessageInput,
          responseSchemas.message,
        );
        applySavedMessage(this.queryClient, message, day);
        this.update((entries) => entries.filter((e) => e.id !== next.id));
        this.retryAttempt = 0;
      } catch (error) {
        if (isTransientError(error)) {
          if (error instanceof ApiError && error.status === 429) {
            const notice = describeError(error);
            this.update((entries) => entries.map((e) => (e.id === next.id ? { ...e, notice } : e)));
          }
          this.scheduleRetry();
          return;
        }
        // Signed out: keep everything for when this user signs in again.
        if (error instanceof ApiError && error.status === 401) return;
        if (error instanceof ApiError && error.code === API_ERROR_CODES.expired) {
          this.dropExpired(next.id);
          this.retryAttempt = 0;
          continue;
        }
        const reason = describeError(error);
        this.update((entries) => entries.map((e) => (e.id === next.id ? { ...e, error: reason } : e)));
      }
    }
  }

  /**
   * An earlier try was stored but its answer was lost, and the message has expired since: it is gone
   * everywhere, so it goes from here too, quietly, with any copy the live connection put in the caches.
   */
  private dropExpired(id: string): void {
    this.update((entries) => entries.filter((e) => e.id !== id));
    removeMessages(this.queryClient, [id]);
    // The day's summary may still show it; the server's counts only live messages.
    void this.queryClient.invalidateQueries({ queryKey: queryKeys.days });
  }

  private scheduleRetry(): void {
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** this.retryAttempt);
    this.retryAttempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.flush(), ceiling / 2 + Math.random() * (ceiling / 2));
  }

  private read(): OutboxEntry[] {
    const raw = readStorage(storageKey(this.userId));
    // Nothing stored yet, or storage unavailable: this tab's copy is the truth.
    if (raw === null) return [...this.entries];
    try {
      const parsed: unknown = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
    } catch {
      return [];
    }
  }

  /** Re-reads storage first, so changes made by other tabs are not overwritten. */
  private update(change: (entries: OutboxEntry[]) => OutboxEntry[]): void {
    const next = change(this.read());
    writeStorage(storageKey(this.userId), JSON.stringify(next));
    this.entries = next;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private readonly handleStorage = (e: StorageEvent) => {
    if (e.key !== storageKey(this.userId)) return;
    this.entries = this.read();
    this.notify();
  };

  private readonly handleOnline = () => {
    this.retryAttempt = 0;
    void this.flush();
  };
}

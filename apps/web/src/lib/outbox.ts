/**
 * Text messages not yet confirmed by the server, and deletions not yet sent. Kept in localStorage per user
 * so a reload, a crash or a lost connection never loses them; sent oldest first with the client's id, so a
 * retry (or two tabs sending the same entry) never duplicates. A deletion is held while it can be undone.
 */

import { resealOnce } from "@daysync/send";
import {
  API_ERROR_CODES,
  closeDeletedNotifications,
  DISCUSSIONS_API,
  isKeyMovedCode,
  responseSchemas,
  SEALED_TEXT,
  type SendMessageInput,
} from "@daysync/shared";
import { ApiError, api, apiFetch } from "./api-client.ts";
import { describeError, isTransientError } from "./api-errors.ts";
import type { ApplyCacheChange } from "./cache-changes.ts";
import type { DeleteOwn, MessageSealing, SendOwn } from "./outbox-sealing.ts";
import {
  deletesKey,
  entriesKey,
  isEntry,
  isPendingDelete,
  type OutboxEntry,
  type PendingDelete,
  readStoredList,
} from "./outbox-storage.ts";
import { writeStorage } from "./storage.ts";

/** The server refused the seal's epoch: the account's key moved on since this device synced. */
const isKeyMoved = (error: unknown) => error instanceof ApiError && isKeyMovedCode(error.code);

const SEALING_NOTICES: ReadonlySet<string> = new Set([SEALED_TEXT.approveToSend, SEALED_TEXT.rotating]);

const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 30_000;

export class Outbox {
  private entries: readonly OutboxEntry[] = [];
  private deletes: readonly PendingDelete[] = [];
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();
  private flushing: Promise<void> | null = null;
  private again = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryAttempt = 0;
  private started = false;

  constructor(
    private readonly userId: string,
    /** Shows what the server answered wherever it is shown (app/ wires it to the features' caches). */
    private readonly applyChange: ApplyCacheChange,
    private readonly sealing: MessageSealing,
    private readonly sendOwn: SendOwn,
    private readonly deleteOwn: DeleteOwn,
  ) {
    this.entries = this.read();
    this.deletes = this.readDeletes();
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
    clearTimeout(this.holdTimer);
  }

  getEntries = (): readonly OutboxEntry[] => this.entries;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Keeps the message first, then tries to send it. */
  enqueue(input: SendMessageInput & { discussionId?: string }): void {
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

  /** Deletions waiting (held for Undo, or for the connection): their messages are not shown. */
  getDeletes = (): readonly PendingDelete[] => this.deletes;

  /** Hides the message at once; it is deleted on the server after `holdMs`, unless `cancelDelete` comes first. */
  enqueueDelete(id: string, holdMs: number, discussionId?: string): void {
    const entry: PendingDelete = discussionId
      ? { id, holdUntil: Date.now() + holdMs, discussionId }
      : { id, holdUntil: Date.now() + holdMs };
    this.updateDeletes((deletes) => [...deletes.filter((d) => d.id !== id), entry]);
    void this.flush();
  }

  /** Undo: the message shows again and nothing is sent. */
  cancelDelete(id: string): void {
    this.updateDeletes((deletes) => deletes.filter((d) => d.id !== id));
  }

  /** The time for Undo is over: send the deletion now. */
  releaseDelete(id: string): void {
    if (!this.readDeletes().some((d) => d.id === id && d.holdUntil > 0)) return;
    this.updateDeletes((deletes) => deletes.map((d) => (d.id === id ? { ...d, holdUntil: 0 } : d)));
    void this.flush();
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
    if (await this.sendMessages()) await this.sendDeletes();
  }

  /** Sends the waiting messages; false when it has to stop for now (offline, signed out, no key to seal with). */
  private async sendMessages(): Promise<boolean> {
    for (;;) {
      const next = this.read().find((e) => !e.error);
      if (!this.started) return false;
      if (!next) return true;
      try {
        const input = { id: next.id, content: next.content, date: next.date, time: next.time } satisfies SendMessageInput;
        if (next.discussionId) {
          const sealed = await this.sealing.sendToRoom?.(next.discussionId, input);
          if (sealed && "waiting" in sealed) {
            // Waiting for a member's device to make the next key, or for this device's keys: looked at again later.
            this.setNotice(next.id, sealed.waiting);
            this.scheduleRetry();
            return false;
          }
          if (next.notice) this.setNotice(next.id, undefined);
          const message =
            sealed ?? (await api.post(DISCUSSIONS_API.messages(next.discussionId), input, responseSchemas.discussionMessage)).message;
          this.applyChange({ kind: "discussion.message.sent", message });
        } else {
          const sent = await resealOnce(() => this.sealAndPost(next, input), {
            keyMoved: isKeyMoved,
            // Sealed under an epoch the account has left: catch up and seal it again, same id; once per try.
            catchUp: async () => {
              this.setNotice(next.id, SEALED_TEXT.rotating);
              await this.sealing.catchUp().catch(() => undefined);
            },
          });
          if (!sent) return false;
        }
        this.update((entries) => entries.filter((e) => e.id !== next.id));
        this.retryAttempt = 0;
      } catch (error) {
        if (isKeyMoved(error)) {
          this.setNotice(next.id, SEALED_TEXT.rotating);
          this.scheduleRetry();
          return false;
        }
        if (isTransientError(error)) {
          if (error instanceof ApiError && error.status === 429) this.setNotice(next.id, describeError(error));
          this.scheduleRetry();
          return false;
        }
        // Signed out: keep everything for when this user signs in again.
        if (error instanceof ApiError && error.status === 401) return false;
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

  /** Seals a message to the user's days and posts it; false when it has to wait for this device's keys. */
  private async sealAndPost(entry: OutboxEntry, input: SendMessageInput): Promise<boolean> {
    const sealed = await this.sealing.seal(input);
    if ("waiting" in sealed) {
      this.setNotice(entry.id, sealed.waiting);
      return false;
    }
    const notice = this.read().find((e) => e.id === entry.id)?.notice;
    if (notice && SEALING_NOTICES.has(notice)) this.setNotice(entry.id, undefined);
    const { message, day } = await this.sendOwn(sealed.body);
    await this.sealing.stored?.(message.id);
    this.applyChange({ kind: "message.created", message, day });
    return true;
  }

  /** Why an entry is still waiting, shown in place of "sending" (none: cleared). */
  private setNotice(id: string, notice: string | undefined): void {
    if (this.read().find((e) => e.id === id)?.notice === notice) return;
    this.update((entries) => entries.map((e) => (e.id === id ? { ...e, notice } : e)));
  }

  /** Sends the deletions whose time for Undo is over; wakes up again when the next one's is. */
  private async sendDeletes(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const next = this.readDeletes().find((d) => d.holdUntil <= now);
      if (!next || !this.started) break;
      let refused = false;
      try {
        // What a discussion's DELETE answers is not read: success is all that matters here.
        if (next.discussionId) await apiFetch(DISCUSSIONS_API.message(next.discussionId, next.id), { method: "DELETE" });
        else {
          // A note that cannot be left (no key here) does not stop the deletion; one offline waits for the retry.
          await this.sealing.noteDeletion?.(next.id).catch((error: unknown) => {
            if (isTransientError(error)) throw error;
          });
          await this.deleteOwn(next.id);
        }
      } catch (error) {
        if (isTransientError(error)) {
          this.scheduleRetry();
          return;
        }
        if (error instanceof ApiError && error.status === 401) return;
        // 404: it is gone already (an earlier try, another device, expiry). Anything else: it was not deleted.
        refused = !(error instanceof ApiError && error.status === 404);
      }
      this.updateDeletes((deletes) => deletes.filter((d) => d.id !== next.id));
      this.retryAttempt = 0;
      if (refused) {
        this.applyChange(next.discussionId ? { kind: "deletion.refused", discussionId: next.discussionId } : { kind: "deletion.refused" });
        continue;
      }
      if (next.discussionId) {
        this.applyChange({ kind: "discussion.messages.deleted", discussion_id: next.discussionId, ids: [next.id] });
        continue;
      }
      this.applyChange({ kind: "day.messages.removed", ids: [next.id] });
      void navigator.serviceWorker
        ?.getRegistration()
        .then((registration) => registration && closeDeletedNotifications(registration, { message_ids: [next.id], day_ids: [] }))
        .catch(() => {});
    }
    const held = this.readDeletes().filter((d) => d.holdUntil > 0);
    clearTimeout(this.holdTimer);
    if (held.length > 0) {
      const wake = Math.min(...held.map((d) => d.holdUntil)) - Date.now();
      this.holdTimer = setTimeout(() => void this.flush(), Math.max(0, wake));
    }
  }

  /**
   * An earlier try was stored but its answer was lost, and the message has expired since: it is gone
   * everywhere, so it goes from here too, quietly, with any copy the live connection put in the caches.
   */
  private dropExpired(id: string): void {
    this.update((entries) => entries.filter((e) => e.id !== id));
    // The day's summary may still show it too: the change reloads it, as the server counts only live messages.
    this.applyChange({ kind: "day.messages.removed", ids: [id] });
  }

  private scheduleRetry(): void {
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** this.retryAttempt);
    this.retryAttempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.flush(), ceiling / 2 + Math.random() * (ceiling / 2));
  }

  private read(): OutboxEntry[] {
    return readStoredList(entriesKey(this.userId), this.entries, isEntry);
  }

  /** Re-reads storage first, so changes made by other tabs are not overwritten. */
  private update(change: (entries: OutboxEntry[]) => OutboxEntry[]): void {
    const next = change(this.read());
    writeStorage(entriesKey(this.userId), JSON.stringify(next));
    this.entries = next;
    this.notify();
  }

  private readDeletes(): PendingDelete[] {
    return readStoredList(deletesKey(this.userId), this.deletes, isPendingDelete);
  }

  private updateDeletes(change: (deletes: PendingDelete[]) => PendingDelete[]): void {
    const next = change(this.readDeletes());
    writeStorage(deletesKey(this.userId), JSON.stringify(next));
    this.deletes = next;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private readonly handleStorage = (e: StorageEvent) => {
    if (e.key === deletesKey(this.userId)) this.deletes = this.readDeletes();
    else if (e.key === entriesKey(this.userId)) this.entries = this.read();
    else return;
    this.notify();
  };

  private readonly handleOnline = () => {
    this.retryAttempt = 0;
    void this.flush();
  };
}

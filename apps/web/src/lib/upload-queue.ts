/**
 * Staged files and their resumable uploads (tus-js-client), each row with the spec's status machine:
 * initial → uploading ⇄ pause → success | fail. 'Send' queues the staged rows as one batch; a few upload at a
 * time, none while the browser is offline (they wait, queued, and start when it is back online). A network
 * failure pauses a row and resumes it by itself when the browser is back online; the fingerprint
 * kept by tus-js-client lets the same file resume after a reload instead of starting over.
 * The queue lives outside the composer, one per signed-in user (app/session-services-provider.tsx hands it out), so
 * uploads go on while another page or day is open.
 * Files for the user's own days are sealed on this device (docs/protocol/encryption.md, "File records"; lib/upload-start.ts, through @daysync/send); a row waits,
 * queued, while this device cannot seal. Discussions stay in clear.
 */
import { isKeyMovedUpload, SEALED_CHUNK_SIZE, type Sealer, serverErrorOf, statusOf } from "@daysync/send";
import { API, type UploadStatus } from "@daysync/shared";
import { defaultOptions, type PreviousUpload, Upload } from "tus-js-client";
import { clearMetadata, fingerprintOf, sealedStart, sealingReader, type UploadStart } from "./upload-start.ts";
import { newUuid } from "./uuid.ts";

export interface UploadRow {
  id: string;
  file: File;
  /** The discussion the file goes to; null for the user's own day. */
  discussionId: string | null;
  status: UploadStatus;
  /** Sent by the user, waiting for its turn. */
  queued: boolean;
  /** The Send it went with: its files finish with one notice. */
  batch: string | null;
  /** 0–100. */
  percent: number;
  /** Paused because the network went away, not by the user: it resumes by itself. */
  offline: boolean;
  /** Why the upload failed, in words a person can act on. */
  problem: string | null;
  /** The user stopped it: still the spec's "fail" status, but shown as a neutral "Upload cancelled". */
  cancelled: boolean;
  /** Queued but held until this device can seal (why, in words; empty while its keys are being found). */
  waiting: string | null;
  /** Times it started afresh because the account's key moved on while it went. */
  resealed: number;
}

/** Where the queue gets the sealer for files to the user's own days (lib/device-keys.ts). */
export interface UploadSealing {
  sealer(): Promise<{ sealer: Sealer } | { waiting: string | undefined }>;
  /** The key moved on (409): sync the keys, rotating when due. */
  catchUp(): Promise<void>;
  /** The file's last byte was stored: its number is no longer under way. */
  stored?(id: string): Promise<void>;
  /**
   * A file to an encrypted discussion sealed under its room key (lib/sealing/rooms.ts), or why it waits; null for a
   * discussion in clear, whose files go as they are.
   */
  roomStart?(discussionId: string, file: File): Promise<UploadStart | { waiting: string | undefined } | null>;
}

/** Uploads running at once: enough to overlap one file's round trips with another's bytes. */
const CONCURRENT = 2;
const CHUNK_SIZE = 8 * 1024 * 1024;
/** A file whose key moved on again right after it started afresh fails rather than going round. */
const MAX_RESEALS = 2;

/** Statuses after which retrying cannot help: not signed in, not yours, too large, or refused. */
function isFinal(error: Error): boolean {
  const status = statusOf(error);
  return status >= 400 && status < 500 && status !== 409 && status !== 423 && status !== 429;
}

function messageOf(error: Error): string {
  const body = serverErrorOf(error);
  if (body) return body.message;
  if (statusOf(error) === 401) return "Your session has ended. Please sign in again.";
  if (statusOf(error) === 404) return "This upload is no longer available.";
  return "The upload could not be completed.";
}

const staged = (file: File, discussionId: string | null): UploadRow => ({
  id: newUuid(),
  file,
  discussionId,
  status: "initial",
  queued: false,
  batch: null,
  percent: 0,
  offline: false,
  problem: null,
  cancelled: false,
  waiting: null,
  resealed: 0,
});

/** The rows of one user and their tus uploads; the composer shows it and acts on it. */
export class UploadQueue {
  rows: UploadRow[] = [];
  /** A Send's files have all finished: the ones that arrived (the others say why on their rows). */
  onBatchSent?: (files: File[]) => void;
  private online = typeof navigator === "undefined" || navigator.onLine;
  /** Files of each unfinished batch that have arrived. */
  private readonly arrived = new Map<string, File[]>();
  private readonly uploads = new Map<string, Upload>();
  /** Rows the user paused, maybe before their upload had started. */
  private readonly held = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private sealing?: UploadSealing;

  constructor(readonly userId: string) {
    if (typeof window === "undefined") return;
    window.addEventListener("online", this.handleOnline);
    window.addEventListener("offline", this.handleOffline);
    window.addEventListener("beforeunload", this.handleBeforeUnload);
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getRows = () => this.rows;

  /** The signed-in page's keys, which seal files to the user's days; set again when the page's services are made anew. */
  sealWith(sealing: UploadSealing) {
    this.sealing = sealing;
  }

  /** The device's keys changed (approved, caught up): files that waited for them go. */
  keysChanged = () => {
    if (this.rows.some((r) => r.waiting !== null)) this.set(this.rows.map((r) => (r.waiting === null ? r : { ...r, waiting: null })));
  };

  /** Whether the browser has a network: without one, sent files wait for it. */
  getOnline = () => this.online;

  private handleOnline = () => {
    this.online = true;
    this.set(this.rows);
    this.resumeOffline();
  };

  private handleOffline = () => {
    this.online = false;
    this.set(this.rows);
  };

  /** Files waiting for the network live only in this page: leaving it offline would lose them, so the browser asks first. */
  private handleBeforeUnload = (event: BeforeUnloadEvent) => {
    if (this.online || !this.rows.some((r) => r.status === "initial" || r.status === "pause")) return;
    event.preventDefault();
    event.returnValue = "";
  };

  private set(rows: UploadRow[]) {
    this.rows = rows;
    for (const listener of this.listeners) listener();
    this.pump();
  }

  private patch(id: string, change: (row: UploadRow) => Partial<UploadRow>) {
    this.set(this.rows.map((r) => (r.id === id ? { ...r, ...change(r) } : r)));
  }

  /** Adds picked files for a space; a row the user cancelled earlier has said what it had to and makes room. */
  stage = (files: File[], discussionId: string | null = null) => {
    if (files.length)
      this.set([
        ...this.rows.filter((r) => !(r.status === "fail" && r.cancelled && r.discussionId === discussionId)),
        ...files.map((f) => staged(f, discussionId)),
      ]);
  };

  /** Send: every row staged for this space joins the queue, as one batch. */
  sendAll = (discussionId: string | null = null) => {
    const ready = (r: UploadRow) => r.status === "initial" && !r.queued && r.discussionId === discussionId;
    if (!this.rows.some(ready)) return;
    const batch = this.newBatch();
    this.set(this.rows.map((r) => (ready(r) ? { ...r, queued: true, batch } : r)));
  };

  /** Sends these files at once, as one batch, leaving what is staged alone; their rows' ids, to follow them. */
  send = (files: File[], discussionId: string | null = null): string[] => {
    if (!files.length) return [];
    const batch = this.newBatch();
    const rows = files.map((f) => ({ ...staged(f, discussionId), queued: true, batch }));
    this.set([...this.rows, ...rows]);
    return rows.map((r) => r.id);
  };

  private newBatch(): string {
    const batch = newUuid();
    this.arrived.set(batch, []);
    return batch;
  }

  /** Once none of a batch's rows is still on its way, its arrived files are announced together. */
  private settle(batch: string | null) {
    if (batch === null) return;
    const files = this.arrived.get(batch);
    if (!files || this.rows.some((r) => r.batch === batch && r.status !== "fail")) return;
    this.arrived.delete(batch);
    if (files.length) this.onBatchSent?.(files);
  }

  /** Starts queued rows while there is a free slot and a network. A row the user paused gives its slot to the next one. */
  private pump() {
    if (!this.online) return;
    const busy = this.rows.filter((r) => r.status === "uploading" || (r.status === "pause" && r.offline)).length;
    const next = this.rows.filter((r) => r.status === "initial" && r.queued && r.waiting === null).slice(0, Math.max(0, CONCURRENT - busy));
    if (!next.length) return;
    const ids = new Set(next.map((r) => r.id));
    this.set(this.rows.map((r) => (ids.has(r.id) ? { ...r, status: "uploading", queued: false } : r)));
    for (const row of next) void this.begin(row);
  }

  private async begin(row: UploadRow) {
    const { id, file, discussionId } = row;
    const fingerprint = fingerprintOf(this.userId, file, discussionId);
    const previous = await defaultOptions.urlStorage.findUploadsByFingerprint(fingerprint);
    const start: UploadStart | undefined = discussionId
      ? await this.discussionStart(row, discussionId, previous)
      : await this.sealedStart(row, previous);
    // Waiting for this device's key, or cancelled meanwhile (a row paused meanwhile gets its upload, held).
    const now = this.rows.find((r) => r.id === id);
    if (!start || !now || now.status === "fail") return;
    const tus = new Upload(file, {
      endpoint: API.uploads,
      chunkSize: start.sealed ? SEALED_CHUNK_SIZE : CHUNK_SIZE,
      retryDelays: [0, 1000, 3000],
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      fingerprint: async () => fingerprint,
      metadata: start.metadata,
      ...(start.sealed ? { fileReader: sealingReader(file, start.sealed) } : {}),
      onShouldRetry: (error) => !isFinal(error) && !isKeyMovedUpload(error),
      onUploadUrlAvailable: () => {
        // Cancelled while the server was making it (cancel): only now is there an address to delete.
        if (this.uploads.get(id) !== tus) void tus.abort(true).catch(() => undefined);
      },
      onProgress: (sent, total) => this.patch(id, (r) => (r.status === "uploading" ? { percent: total ? (sent / total) * 100 : 0 } : {})),
      onSuccess: () => {
        // Done: the file message arrives over the live connection; the row goes away.
        if (start.metadata.message_id) void this.sealing?.stored?.(start.metadata.message_id);
        this.uploads.delete(id);
        this.arrived.get(row.batch ?? "")?.push(file);
        this.set(this.rows.filter((r) => r.id !== id));
        this.settle(row.batch);
      },
      onError: (error) => {
        if (this.uploads.get(id) !== tus) return;
        if (isKeyMovedUpload(error)) {
          this.uploads.delete(id);
          this.startAfresh(id, messageOf(error));
        } else if (isFinal(error)) {
          this.uploads.delete(id);
          this.patch(id, () => ({ status: "fail", problem: messageOf(error), offline: false }));
          this.settle(row.batch);
        } else {
          // The network went away or the server did not answer: keep the upload, resume later.
          this.patch(id, () => ({ status: "pause", offline: true, problem: null }));
        }
      },
    });
    this.uploads.set(id, tus);
    if (start.previous) tus.resumeFromPreviousUpload(start.previous);
    if (!this.held.has(id)) tus.start();
  }

  /**
   * A file to a discussion: in clear for one in clear; sealed under the room key for an encrypted one, afresh each time
   * (a kept upload's key is not kept); undefined while the room's key is not to hand: the row waits, queued.
   */
  private async discussionStart(row: UploadRow, discussionId: string, previous: PreviousUpload[]): Promise<UploadStart | undefined> {
    const room = this.sealing?.roomStart ? await this.sealing.roomStart(discussionId, row.file) : null;
    if (room === null) return { metadata: clearMetadata(row.file, discussionId), previous: previous[0] };
    for (const kept of previous) await defaultOptions.urlStorage.removeUpload(kept.urlStorageKey).catch(() => undefined);
    if ("metadata" in room) return room;
    this.patch(row.id, (r) => (r.status === "uploading" ? { status: "initial", queued: true, waiting: room.waiting ?? "" } : {}));
    return undefined;
  }

  /** A file to the user's days, sealed; undefined while this device cannot seal: the row waits, queued, for its keys. */
  private async sealedStart(row: UploadRow, previous: PreviousUpload[]): Promise<UploadStart | undefined> {
    const sealing = await this.sealing?.sealer();
    if (sealing && "sealer" in sealing) return sealedStart(sealing.sealer, row.file, previous);
    this.patch(row.id, (r) => (r.status === "uploading" ? { status: "initial", queued: true, waiting: sealing?.waiting ?? "" } : {}));
    return undefined;
  }

  /** The account's key moved on while the file went: the server dropped it; it goes again, sealed under the next epoch. */
  private startAfresh(id: string, problem: string) {
    const row = this.rows.find((r) => r.id === id);
    if (!row) return;
    if (row.resealed >= MAX_RESEALS) {
      this.patch(id, () => ({ status: "fail", problem, offline: false }));
      this.settle(row.batch);
      return;
    }
    // Asked first, so the next sealer waits for the keys to catch up.
    void this.sealing?.catchUp();
    this.patch(id, (r) => ({ status: "initial", queued: true, percent: 0, resealed: r.resealed + 1 }));
  }

  pause = (id: string) => {
    this.held.add(id);
    void this.uploads.get(id)?.abort(false);
    this.patch(id, (r) => (r.status === "uploading" ? { status: "pause", offline: false } : {}));
  };

  resume = (id: string) => {
    const tus = this.uploads.get(id);
    if (!tus) return;
    this.held.delete(id);
    this.patch(id, () => ({ status: "uploading", offline: false, problem: null }));
    tus.start();
  };

  /** Unstages a file, stops a running upload and deletes what reached the server, or clears a finished row. */
  cancel = (id: string) => {
    const row = this.rows.find((r) => r.id === id);
    const batch = row?.batch ?? null;
    const running = this.uploads.get(id);
    this.uploads.delete(id);
    this.held.delete(id);
    // A row that began is cancelled as one: still sealing its start, it has no upload yet, and begin() stops on "fail".
    if (running || row?.status === "uploading") {
      this.patch(id, () => ({ status: "fail", cancelled: true, percent: 0, offline: false, problem: null }));
      // Stopped while the server is making it, the upload would be left there with an address this page never hears
      // of: it goes on until the address comes, then stops and is deleted (onUploadUrlAvailable).
      if (running && running.url !== null) void running.abort(true).catch(() => undefined);
    } else {
      this.set(this.rows.filter((r) => r.id !== id));
    }
    this.settle(batch);
  };

  /** Back online: rows the network paused go on by themselves. */
  resumeOffline = () => {
    for (const row of this.rows) if (row.status === "pause" && row.offline) this.resume(row.id);
  };

  /** Another user signed in on this page: stop everything, keeping what the server has for a later resume. */
  dispose() {
    window.removeEventListener("online", this.handleOnline);
    window.removeEventListener("offline", this.handleOffline);
    window.removeEventListener("beforeunload", this.handleBeforeUnload);
    for (const tus of this.uploads.values()) void tus.abort(false);
    this.uploads.clear();
    this.listeners.clear();
  }
}

let current: UploadQueue | undefined;

/**
 * The queue of this user. It outlives the provider that asks for it (uploads go on while the pairing page is
 * open); a different user signing in on this page disposes the previous one's.
 */
export function uploadQueueFor(userId: string): UploadQueue {
  if (current?.userId !== userId) {
    current?.dispose();
    current = new UploadQueue(userId);
  }
  return current;
}

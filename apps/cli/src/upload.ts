/**
 * One file sent as a sealed file message over tus (docs/protocol/encryption.md, "File records"), with a progress bar in plain bytes. Its
 * name and record key are sealed under the account's current epoch (sealFileUpload); its bytes are read from the file
 * at positions and sealed record by record as tus asks for each 128-record chunk (createSealingSource), so the file
 * is never held in memory.
 *
 * Resumable: the upload's URL and metadata (with the sealed key) are kept in the config directory under a fingerprint
 * of server, account, path, size and modification time, so after Ctrl+C, a lost network or a server restart the same
 * command asks the server for its offset (always a record boundary) and seals and sends only the rest, under the key
 * the kept metadata opens to. When the account's key moved on (409 `key_epoch_changed` / `key_rotation_due`, at the
 * start or at the last byte, where the server then removes the upload), the keys are synced and the file is sent
 * afresh under the new epoch, with the same message id.
 */
import { randomUUID } from "node:crypto";
import { type Stats, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import path from "node:path";
import {
  API,
  formatStoredDate,
  formatStoredTime,
  isKeyMovedCode,
  responseSchemas,
  type SealedFileType,
  uploadMetadataSchema,
} from "@daysync/shared";
import {
  type Bytes,
  createSealingSource,
  type FileToSeal,
  RECORD_SIZE,
  resumeFileUpload,
  SEALED_RECORD_SIZE,
  type SealedUpload,
  type Sealer,
  sealFileUpload,
} from "@daysync/shared/crypto";
import { type DetailedError, type PreviousUpload, Upload, type UrlStorage } from "tus-js-client";
import type { ApiClient } from "./api-client.ts";
import type { ConfigStore } from "./config-store.ts";
import { CliError, EXIT, signedOut, unreachable, usageError } from "./errors.ts";
import { formatBytes } from "./format.ts";
import type { MessageKeys } from "./message-keys.ts";
import { nodeRecords } from "./node-records.ts";
import { type Progress, progressBar } from "./progress.ts";
import { warn } from "./terminal-text.ts";

/** Waits between attempts after a lost connection: about two minutes in all, enough for a server restart. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000, 20_000, 30_000, 30_000];
/** Records per PATCH: every PATCH starts on a record boundary (docs/protocol/encryption.md, "File records"). */
const CHUNK_RECORDS = 128;
/** A send refused because the key moved is sealed again under the new epoch once; refused again, it fails. */
const KEY_ATTEMPTS = 2;

export interface SentFile {
  messageId: string;
  filename: string;
  size: number;
  sizeLabel: string;
}

const DECLARED_TYPES: Record<SealedFileType, string[]> = {
  image: ["jpg", "jpeg", "png", "gif", "webp", "avif", "bmp", "heic", "heif"],
  video: ["mp4", "m4v", "mov", "webm", "mkv", "avi", "ogv", "3gp"],
  audio: ["mp3", "m4a", "aac", "ogg", "oga", "opus", "wav", "flac", "weba"],
  file: [],
};

/**
 * What a sealed file declares itself to be, from its name's extension: the server cannot look inside, and the
 * devices show it as such once opened. Anything else is a file; an SVG too, as the server's own rule has it, since it
 * can carry script.
 */
export function declaredType(name: string): SealedFileType {
  const extension = path.extname(name).slice(1).toLowerCase();
  const found = Object.entries(DECLARED_TYPES).find(([, extensions]) => extensions.includes(extension));
  return (found?.[0] as SealedFileType | undefined) ?? "file";
}

/** tus-js-client's URL storage on top of the config directory. */
function urlStorage(store: ConfigStore): UrlStorage {
  return {
    findAllUploads: async () => Object.values(store.uploads()),
    findUploadsByFingerprint: async (fingerprint) =>
      Object.values(store.uploads()).filter((u) => u.urlStorageKey.startsWith(`${fingerprint}::`)),
    removeUpload: async (key) => {
      const { [key]: _done, ...rest } = store.uploads();
      store.saveUploads(rest);
    },
    addUpload: async (fingerprint, upload) => {
      const urlStorageKey = `${fingerprint}::${randomUUID()}`;
      store.saveUploads({ ...store.uploads(), [urlStorageKey]: { ...upload, urlStorageKey } });
      return urlStorageKey;
    },
  };
}

function statFile(filePath: string): Stats {
  let stat: Stats;
  try {
    stat = statSync(filePath);
  } catch {
    throw new CliError(`No such file: ${filePath}`);
  }
  if (!stat.isFile()) throw usageError(`${filePath} is not a file.`);
  return stat;
}

/** The server's error from a tus answer (JSON error body), if it sent one. */
function serverError(error: DetailedError): { code: string; message: string } | undefined {
  const body = responseSchemas.error.safeParse(safeJson(error.originalResponse?.getBody() ?? ""));
  return body.success ? body.data.error : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The server refused the upload's epoch: the account's key moved on since this terminal synced. */
class KeyMoved extends CliError {}

/** The file on disk is shorter than when the upload began. */
class FileChanged extends Error {}

const keyMoved = (error: DetailedError) => error.originalResponse?.getStatus() === 409 && isKeyMovedCode(serverError(error)?.code ?? "");

/** Fills `into` with the file's plaintext bytes from `start`, read at their position. */
async function readAt(handle: FileHandle, start: number, into: Uint8Array): Promise<void> {
  for (let filled = 0; filled < into.length; ) {
    const { bytesRead } = await handle.read(into, filled, into.length - filled, start + filled);
    if (bytesRead === 0) throw new FileChanged("The file became shorter while it was sent");
    filled += bytesRead;
  }
}

/** Sealed bytes sent, as the plain bytes they carry (each record's overhead taken off), for the progress bar. */
function plainBytesOf(sealedSent: number, plainSize: number): number {
  const overhead = (SEALED_RECORD_SIZE - RECORD_SIZE) * Math.ceil(sealedSent / SEALED_RECORD_SIZE);
  return Math.min(plainSize, Math.max(0, sealedSent - overhead));
}

export async function uploadFile(
  store: ConfigStore,
  api: ApiClient,
  userId: string,
  filePath: string,
  loadKeys: () => Promise<MessageKeys>,
): Promise<SentFile> {
  const stat = statFile(filePath);
  const filename = path.basename(filePath);
  const keys = await loadKeys();
  // A terminal without the current epoch cannot seal: it says so before anything is sent.
  keys.sealer();
  const sizeLabel = formatBytes(stat.size);
  // The plan's limit is a file's plain size; the server holds the sealed length to the limit's sealed length.
  const limit = await api.get(API.uploadLimit, responseSchemas.uploadLimit);
  if (stat.size > limit.max_file_size) {
    throw new CliError(`${filename} is too large (${sizeLabel}): your plan allows files up to ${limit.label}.`, EXIT.tooLarge);
  }
  const now = new Date();
  // The name checked as a name in clear would be; it then travels sealed.
  const checked = uploadMetadataSchema.safeParse({
    filename,
    filetype: "application/octet-stream",
    message_id: randomUUID(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
  });
  if (!checked.success) throw usageError(`${filename}: ${checked.error.issues[0]?.message ?? "this file cannot be sent."}`);
  const { message_id, date, time } = checked.data;
  let file: FileToSeal = { id: message_id, date, time, name: checked.data.filename, type: declaredType(filename) };

  const storage = urlStorage(store);
  const fingerprint = ["daysync", api.server, userId, path.resolve(filePath), stat.size, stat.mtimeMs].join("|");
  const handle = await open(filePath, "r").catch((error: Error) => {
    throw new CliError(`Cannot read ${filePath}: ${error.message}`);
  });
  const bar = progressBar(filename, stat.size);
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once("SIGINT", onInterrupt);
  process.once("SIGTERM", onInterrupt);
  try {
    for (let attempt = 1; ; attempt++) {
      const sealer = keys.sealer();
      const { sealed, previous } = await keptOrSealed(storage, fingerprint, sealer, file);
      const { messageId } = sealed;
      try {
        await sendSealed({
          api,
          storage,
          fingerprint,
          sealed,
          previous,
          handle,
          plainSize: stat.size,
          filename,
          bar,
          signal: interrupt.signal,
        });
        await keys.stored(messageId);
        return { messageId, filename, size: stat.size, sizeLabel };
      } catch (error) {
        if (!(error instanceof KeyMoved) || attempt >= KEY_ATTEMPTS) throw error;
        // Sealed under an epoch the account left: the server kept nothing of it. Synced (which makes the next epoch
        // when a rotation is due), the file goes again as a new upload under the new epoch, with the same message id.
        for (const kept of await storage.findUploadsByFingerprint(fingerprint)) await storage.removeUpload(kept.urlStorageKey);
        file = { ...file, id: messageId, date: sealed.metadata.date ?? file.date, time: sealed.metadata.time ?? file.time };
        await keys.sync();
      }
    }
  } finally {
    bar.stop();
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
    await handle.close();
  }
}

/**
 * The upload this terminal kept for the same file, when it can go on under the current epoch (its key opened from
 * its kept metadata); kept uploads that cannot are dropped. Else the file sealed afresh.
 */
async function keptOrSealed(
  storage: UrlStorage,
  fingerprint: string,
  sealer: Sealer,
  file: FileToSeal,
): Promise<{ sealed: SealedUpload; previous?: PreviousUpload }> {
  const kept = await storage.findUploadsByFingerprint(fingerprint);
  for (const previous of kept.reverse()) {
    const sealed = await resumeFileUpload(sealer, previous.metadata);
    if (sealed) return { sealed, previous };
    await storage.removeUpload(previous.urlStorageKey);
  }
  return { sealed: await sealFileUpload(sealer, file) };
}

interface SendSealed {
  api: ApiClient;
  storage: UrlStorage;
  fingerprint: string;
  sealed: SealedUpload;
  previous: PreviousUpload | undefined;
  handle: FileHandle;
  plainSize: number;
  filename: string;
  bar: Progress;
  signal: AbortSignal;
}

export type FileReader = NonNullable<ConstructorParameters<typeof Upload>[1]["fileReader"]>;

/**
 * tus-js-client's source for a sealed file on disk: the records of each range tus asks for, sealed from the file as
 * they are read. The file handle is the caller's, closed when it is done with it.
 */
export function sealingFileReader(handle: FileHandle, sealed: Pick<SealedUpload, "fileKey" | "messageId">, plainSize: number): FileReader {
  const source = createSealingSource({
    fileKey: sealed.fileKey,
    messageId: sealed.messageId,
    plainLength: plainSize,
    read: (start, _end, into) => readAt(handle, start, into),
    cipher: nodeRecords,
  });
  // Ranges are sealed into buffers used again, not new ones: a GiB sent through new ones kept the garbage collector
  // busy for a second (bench/upload-throughput.md). A range's buffer comes back only once the server holds all of it
  // (tus asks for the range that follows it): until then a request may still be sending from it.
  const spare: Bytes[] = [];
  const seal = (start: number, end: number) => {
    const found = spare.pop();
    const buffer = found && found.length >= end - start ? found : new Uint8Array(end - start);
    const bytes = source.slice(start, end, buffer);
    bytes.catch(() => undefined);
    return { start, end, buffer, bytes };
  };
  let ahead: ReturnType<typeof seal> | undefined;
  let sending: { end: number; buffer: Bytes } | undefined;
  return {
    openFile: async () => ({
      size: source.size,
      slice: async (start: number, end: number) => {
        const stop = Math.min(end, source.size);
        if (sending?.end === start) spare.push(sending.buffer);
        sending = undefined;
        // The next range is sealed while this one is sent: tus asks for ranges one after another, each once the last
        // is in. One sealed ahead for a range tus did not ask for is left to the collector: it may still be sealing.
        const next = ahead?.start === start && ahead.end === stop ? ahead : seal(start, stop);
        ahead = stop < source.size ? seal(stop, Math.min(source.size, stop + (stop - start))) : undefined;
        const bytes = await next.bytes;
        sending = { end: stop, buffer: next.buffer };
        // tus-js-client's Node HTTP stack reads the body's length from `size`, as its own Buffer source sets it.
        const value = Object.assign(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), { size: bytes.length });
        return { value, done: end >= source.size };
      },
      close: () => undefined,
    }),
  };
}

/** One tus upload of the sealed file to its last byte (resumed at the server's offset when `previous` is given). */
function sendSealed(options: SendSealed): Promise<void> {
  const { api, sealed, plainSize, filename, bar, signal } = options;
  const { metadata } = sealed;
  const fileReader = sealingFileReader(options.handle, sealed, plainSize);
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(interrupted(filename));
    const upload = new Upload(Buffer.alloc(0), {
      endpoint: api.server + API.uploads,
      headers: api.headers(),
      metadata,
      fileReader,
      chunkSize: CHUNK_RECORDS * SEALED_RECORD_SIZE,
      urlStorage: options.storage,
      fingerprint: async () => options.fingerprint,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      retryDelays: RETRY_DELAYS_MS,
      onProgress: (sent) => bar.update(plainBytesOf(sent, plainSize)),
      onShouldRetry(error) {
        if (keyMoved(error) || error.causingError instanceof FileChanged) return false;
        const status = error.originalResponse?.getStatus() ?? 0;
        const retry = status < 400 || status >= 500 || status === 409 || status === 423;
        if (retry) warn(`\n${filename}: the connection was interrupted; resuming…`);
        return retry;
      },
      onSuccess: () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      onError: (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(uploadError(api.server, filename, error));
      },
    });
    const onAbort = () => {
      void upload.abort();
      reject(interrupted(filename));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (options.previous) upload.resumeFromPreviousUpload(options.previous);
    upload.start();
  });
}

const interrupted = (filename: string) =>
  new CliError(`\nInterrupted. Run the same command again to resume ${filename} where it stopped.`, EXIT.interrupted);

function uploadError(server: string, filename: string, error: Error | DetailedError): CliError {
  const detailed = error as DetailedError;
  const response = "originalResponse" in error ? error.originalResponse : null;
  const status = response?.getStatus() ?? 0;
  if (detailed.causingError instanceof FileChanged) {
    return new CliError(`${filename} changed while it was sent. Run the same command again to send it as it is now.`);
  }
  if (status === 0) {
    const cause = detailed.causingError?.message ?? error.message;
    return new CliError(`${unreachable(server, cause).message} Run the same command again to resume the upload.`, EXIT.unreachable);
  }
  if (status === 401) return signedOut(server);
  if (status === 413) return new CliError(serverError(detailed)?.message ?? "This file is too large for your plan.", EXIT.tooLarge);
  if (keyMoved(detailed)) return new KeyMoved(serverError(detailed)?.message ?? "Your account's key changed.");
  return new CliError(serverError(detailed)?.message ?? `The upload failed: the server answered ${status}.`);
}

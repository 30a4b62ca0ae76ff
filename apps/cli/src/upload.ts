/**
 * One file sent as a sealed file message over tus (docs/protocol/encryption.md, "File records"), with a progress bar in plain bytes. Its
 * name and record key are sealed under the account's current epoch (sealFileUpload); its bytes are read from the file
 * at positions and sealed record by record as tus asks for each chunk (the send pipeline, @daysync/send), so the
 * file is never held in memory.
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
  type FileReader,
  type FileToSeal,
  isKeyMovedUpload,
  plainBytesOf,
  resealOnce,
  SEALED_CHUNK_SIZE,
  type SealedUpload,
  sealedUploadStart,
  sealingFileReader as sealingReader,
  serverErrorOf,
  statusOf,
  uploadToEnd,
} from "@daysync/send";
import { API, formatStoredDate, formatStoredTime, responseSchemas, type SealedFileType, uploadMetadataSchema } from "@daysync/shared";
import type { DetailedError, PreviousUpload, UrlStorage } from "tus-js-client";
import type { ApiClient } from "./api-client.ts";
import type { ConfigStore } from "./config-store.ts";
import { CliError, EXIT, signedOut, unreachable, usageError } from "./errors.ts";
import { formatBytes } from "./format.ts";
import { type Progress, progressBar } from "./progress.ts";
import type { MessageKeys } from "./sealing/message-keys.ts";
import { nodeRecords } from "./sealing/node-records.ts";
import { warn } from "./terminal-text.ts";

export type { FileReader };

/** Waits between attempts after a lost connection: about two minutes in all, enough for a server restart. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000, 20_000, 30_000, 30_000];

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

/** The server refused the upload's epoch: the account's key moved on since this terminal synced. */
class KeyMoved extends CliError {}

/** The file on disk is shorter than when the upload began. */
class FileChanged extends Error {}

/** Fills `into` with the file's plaintext bytes from `start`, read at their position. */
async function readAt(handle: FileHandle, start: number, into: Uint8Array): Promise<void> {
  for (let filled = 0; filled < into.length; ) {
    const { bytesRead } = await handle.read(into, filled, into.length - filled, start + filled);
    if (bytesRead === 0) throw new FileChanged("The file became shorter while it was sent");
    filled += bytesRead;
  }
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
  let sealed: SealedUpload | undefined;
  try {
    return await resealOnce(
      async () => {
        const start = await sealedUploadStart(keys.sealer(), file, (await storage.findUploadsByFingerprint(fingerprint)).reverse(), (key) =>
          storage.removeUpload(key),
        );
        sealed = start.sealed;
        await sendSealed({
          api,
          storage,
          fingerprint,
          sealed: start.sealed,
          previous: start.previous,
          handle,
          plainSize: stat.size,
          filename,
          bar,
          signal: interrupt.signal,
        });
        await keys.stored(start.sealed.messageId);
        return { messageId: start.sealed.messageId, filename, size: stat.size, sizeLabel };
      },
      {
        keyMoved: (error) => error instanceof KeyMoved,
        // Sealed under an epoch the account left: the server kept nothing of it. Synced (which makes the next epoch
        // when a rotation is due), the file goes again as a new upload under the new epoch, with the same message id.
        catchUp: async () => {
          for (const kept of await storage.findUploadsByFingerprint(fingerprint)) await storage.removeUpload(kept.urlStorageKey);
          if (sealed)
            file = { ...file, id: sealed.messageId, date: sealed.metadata.date ?? file.date, time: sealed.metadata.time ?? file.time };
          await keys.sync();
        },
      },
    );
  } finally {
    bar.stop();
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
    await handle.close();
  }
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

/** tus-js-client's source for a sealed file on disk; the file handle is the caller's, closed when it is done with it. */
export function sealingFileReader(handle: FileHandle, sealed: Pick<SealedUpload, "fileKey" | "messageId">, plainSize: number): FileReader {
  return sealingReader(sealed, {
    size: plainSize,
    read: (start, _end, into) => readAt(handle, start, into),
    cipher: nodeRecords,
    sealAhead: true,
    // tus-js-client's Node HTTP stack reads the body's length from `size`, as its own Buffer source sets it.
    chunk: (bytes) => Object.assign(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), { size: bytes.length }),
  });
}

/** One tus upload of the sealed file to its last byte (resumed at the server's offset when `previous` is given). */
async function sendSealed(options: SendSealed): Promise<void> {
  const { api, sealed, plainSize, filename, bar, signal } = options;
  const upload = {
    endpoint: api.server + API.uploads,
    headers: api.headers(),
    metadata: sealed.metadata,
    fileReader: sealingFileReader(options.handle, sealed, plainSize),
    chunkSize: SEALED_CHUNK_SIZE,
    urlStorage: options.storage,
    fingerprint: async () => options.fingerprint,
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    retryDelays: RETRY_DELAYS_MS,
    onProgress: (sent: number) => bar.update(plainBytesOf(sent, plainSize)),
    onShouldRetry(error: DetailedError) {
      if (isKeyMovedUpload(error) || error.causingError instanceof FileChanged) return false;
      const status = error.originalResponse?.getStatus() ?? 0;
      const retry = status < 400 || status >= 500 || status === 409 || status === 423;
      if (retry) warn(`\n${filename}: the connection was interrupted; resuming…`);
      return retry;
    },
  };
  await uploadToEnd(Buffer.alloc(0), upload, { previous: options.previous, signal, interrupted: () => interrupted(filename) }).catch(
    (error: Error) => {
      throw error instanceof CliError ? error : uploadError(api.server, filename, error);
    },
  );
}

const interrupted = (filename: string) =>
  new CliError(`\nInterrupted. Run the same command again to resume ${filename} where it stopped.`, EXIT.interrupted);

function uploadError(server: string, filename: string, error: Error | DetailedError): CliError {
  const detailed = error as DetailedError;
  const status = statusOf(error);
  if (detailed.causingError instanceof FileChanged) {
    return new CliError(`${filename} changed while it was sent. Run the same command again to send it as it is now.`);
  }
  if (status === 0) {
    const cause = detailed.causingError?.message ?? error.message;
    return new CliError(`${unreachable(server, cause).message} Run the same command again to resume the upload.`, EXIT.unreachable);
  }
  if (status === 401) return signedOut(server);
  if (status === 413) return new CliError(serverErrorOf(detailed)?.message ?? "This file is too large for your plan.", EXIT.tooLarge);
  if (isKeyMovedUpload(detailed)) return new KeyMoved(serverErrorOf(detailed)?.message ?? "Your account's key changed.");
  return new CliError(serverErrorOf(detailed)?.message ?? `The upload failed: the server answered ${status}.`);
}

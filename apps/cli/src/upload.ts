/**
 * One file sent as a file message over tus, with a progress bar. Resumable: the upload's URL is kept in the
 * config directory under a fingerprint of server, account, path, size and modification time, so after Ctrl+C,
 * a lost network or a server restart the same command asks the server for its offset and sends only the rest.
 */
import { randomUUID } from "node:crypto";
import { createReadStream, type Stats, statSync } from "node:fs";
import path from "node:path";
import { API, formatStoredDate, formatStoredTime, responseSchemas, uploadMetadataSchema } from "@daysync/shared";
import { type DetailedError, type PreviousUpload, Upload, type UrlStorage } from "tus-js-client";
import type { ApiClient } from "./api-client.ts";
import type { ConfigStore } from "./config-store.ts";
import { CliError, EXIT, signedOut, unreachable, usageError } from "./errors.ts";
import { formatBytes } from "./format.ts";
import { progressBar } from "./progress.ts";

/** Waits between attempts after a lost connection: about two minutes in all, enough for a server restart. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000, 20_000, 30_000, 30_000];

export interface SentFile {
  messageId: string;
  filename: string;
  size: number;
  sizeLabel: string;
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

/** The server's sentence from a tus answer (JSON error body), or a fallback. */
function serverMessage(error: DetailedError, fallback: string): string {
  const body = responseSchemas.error.safeParse(safeJson(error.originalResponse?.getBody() ?? ""));
  return body.success ? body.data.error.message : fallback;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function uploadFile(store: ConfigStore, api: ApiClient, userId: string, filePath: string): Promise<SentFile> {
  const stat = statFile(filePath);
  const filename = path.basename(filePath);
  const sizeLabel = formatBytes(stat.size);
  const limit = await api.get(API.uploadLimit, responseSchemas.uploadLimit);
  if (stat.size > limit.max_file_size) {
    throw new CliError(`${filename} is too large (${sizeLabel}): your plan allows files up to ${limit.label}.`, EXIT.tooLarge);
  }
  const now = new Date();
  const metadata = uploadMetadataSchema.safeParse({
    filename,
    // The server detects the type from the bytes; an empty value would travel as a key without value, which it refuses.
    filetype: "application/octet-stream",
    message_id: randomUUID(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
  });
  if (!metadata.success) throw usageError(`${filename}: ${metadata.error.issues[0]?.message ?? "this file cannot be sent."}`);

  const bar = progressBar(filename, stat.size);
  let messageId = metadata.data.message_id;
  let resumed: PreviousUpload | undefined;
  let onInterrupt: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      // tus-js-client reads an fs.ReadStream by path in Node (and reopens it at the server's offset), but its types only name browser inputs.
      const input = createReadStream(filePath) as unknown as Buffer;
      const upload = new Upload(input, {
        endpoint: api.server + API.uploads,
        headers: api.headers(),
        metadata: { ...metadata.data },
        urlStorage: urlStorage(store),
        fingerprint: async () => ["daysync", api.server, userId, path.resolve(filePath), stat.size, stat.mtimeMs].join("|"),
        storeFingerprintForResuming: true,
        removeFingerprintOnSuccess: true,
        retryDelays: RETRY_DELAYS_MS,
        onProgress: (sent) => bar.update(sent),
        onShouldRetry(error) {
          const status = error.originalResponse?.getStatus() ?? 0;
          const retry = status < 400 || status >= 500 || status === 409 || status === 423;
          if (retry) process.stderr.write(`\n${filename}: the connection was interrupted; resuming…\n`);
          return retry;
        },
        onSuccess: () => {
          // A kept upload the server no longer had was started afresh, under this run's message id.
          if (resumed && upload.url === resumed.uploadUrl) messageId = resumed.metadata.message_id ?? messageId;
          resolve();
        },
        onError: (error) => reject(uploadError(api.server, error)),
      });
      onInterrupt = () => {
        void upload.abort();
        reject(new CliError(`\nInterrupted. Run the same command again to resume ${filename} where it stopped.`, EXIT.interrupted));
      };
      process.once("SIGINT", onInterrupt);
      process.once("SIGTERM", onInterrupt);
      upload
        .findPreviousUploads()
        .then((previous: PreviousUpload[]) => {
          resumed = previous.at(-1);
          if (resumed) upload.resumeFromPreviousUpload(resumed);
          upload.start();
        })
        .catch(reject);
    });
  } finally {
    bar.stop();
    if (onInterrupt) {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onInterrupt);
    }
  }
  return { messageId, filename, size: stat.size, sizeLabel };
}

function uploadError(server: string, error: Error | DetailedError): CliError {
  const response = "originalResponse" in error ? error.originalResponse : null;
  const status = response?.getStatus() ?? 0;
  const detailed = error as DetailedError;
  if (status === 0) {
    const cause = detailed.causingError?.message ?? error.message;
    return new CliError(`${unreachable(server, cause).message} Run the same command again to resume the upload.`, EXIT.unreachable);
  }
  if (status === 401) return signedOut(server);
  if (status === 413) return new CliError(serverMessage(detailed, "This file is too large for your plan."), EXIT.tooLarge);
  return new CliError(serverMessage(detailed, `The upload failed: the server answered ${status}.`));
}

/**
 * What an upload starts from (lib/upload-queue.ts): a file to a discussion goes in clear; a file to the user's own
 * days is sealed on this device (docs/protocol/encryption.md, "File records"), its records sealed as tus reads each chunk, and a resumed
 * upload gets its key back from the metadata tus kept with its URL, so no raw key is stored anywhere.
 */
import { fileMessageType, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { createSealingSource, readFrom, resumeFileUpload, type SealedUpload, type Sealer, sealFileUpload } from "@daysync/shared/crypto";
import { defaultOptions, type PreviousUpload, type UploadOptions } from "tus-js-client";
import { newUuid } from "./uuid.ts";

/** What an upload starts from: its metadata, its sealing (files to the user's days) and the kept upload it goes on with. */
export interface UploadStart {
  metadata: Record<string, string>;
  sealed?: SealedUpload;
  previous?: PreviousUpload;
}

/** tus-js-client's fingerprint, with the space: the same file sent to a discussion and to the user's days are two uploads. */
export const fingerprintOf = (userId: string, file: File, discussionId: string | null) =>
  ["daysync", userId, discussionId ?? "own", file.name, file.type, file.size, file.lastModified].join("|");

export function clearMetadata(file: File, discussionId: string | null): Record<string, string> {
  const now = new Date();
  return {
    filename: file.name,
    filetype: file.type,
    message_id: newUuid(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
    ...(discussionId ? { discussion_id: discussionId } : {}),
  };
}

/**
 * A file to the user's days: the upload begun before under the current epoch goes on with its key; otherwise a new
 * one is sealed (the kept ones that cannot go on are forgotten).
 */
export async function sealedStart(sealer: Sealer, file: File, previous: PreviousUpload[]): Promise<UploadStart> {
  for (const kept of previous) {
    const resumed = await resumeFileUpload(sealer, kept.metadata);
    if (resumed) return { metadata: resumed.metadata, sealed: resumed, previous: kept };
    await defaultOptions.urlStorage.removeUpload(kept.urlStorageKey);
  }
  const now = new Date();
  const sealed = await sealFileUpload(sealer, {
    id: newUuid(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
    name: file.name,
    type: fileMessageType(file.type),
  });
  return { metadata: sealed.metadata, sealed };
}

/** tus reads a sealed file through this: each chunk's records sealed as it is read, never the whole file at once. */
export function sealingReader(file: File, sealed: SealedUpload): NonNullable<UploadOptions["fileReader"]> {
  const source = createSealingSource({
    fileKey: sealed.fileKey,
    messageId: sealed.messageId,
    plainLength: file.size,
    read: readFrom(file),
  });
  return {
    openFile: async () => ({
      size: source.size,
      // A Blob: tus-js-client counts what a chunk holds by its `size`.
      slice: async (start, end) => ({ value: new Blob([await source.slice(start, end)]), done: end >= source.size }),
      close: () => {},
    }),
  };
}

/**
 * What an upload starts from (lib/upload-queue.ts): a file to a discussion goes in clear; a file to the user's own
 * days is sealed on this device by the send pipeline (@daysync/send, "sealed-upload"), its records sealed as tus reads
 * each chunk, and a resumed upload gets its key back from the metadata tus kept with its URL.
 */

import { blobFile, type FileReader, type SealedUpload, type Sealer, sealedUploadStart, sealingFileReader } from "@daysync/send";
import { fileMessageType, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { defaultOptions, type PreviousUpload } from "tus-js-client";
import { newUuid } from "./uuid.ts";

/** What an upload starts from: its metadata, its sealing (files to the user's days) and the kept upload it goes on with. */
export interface UploadStart {
  metadata: Record<string, string>;
  /** The key its records are sealed under as tus reads them (files to the user's days, and to an encrypted discussion). */
  sealed?: Pick<SealedUpload, "fileKey" | "messageId">;
  previous?: PreviousUpload | undefined;
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

/** A file to an encrypted discussion, sealed under its current generation by `seal` (lib/sealing/rooms.ts `sealFile`). */
export async function roomStart(
  seal: (file: {
    id: string;
    date: string;
    time: string;
    name: string;
    type: string;
  }) => Promise<UploadStart | { waiting: string | undefined }>,
  file: File,
): Promise<UploadStart | { waiting: string | undefined }> {
  const now = new Date();
  return seal({
    id: newUuid(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
    name: file.name,
    type: fileMessageType(file.type),
  });
}

/** A file to the user's days: the kept upload that can go on under the current epoch, else the file sealed afresh. */
export async function sealedStart(sealer: Sealer, file: File, kept: PreviousUpload[]): Promise<UploadStart> {
  const now = new Date();
  const toSeal = {
    id: newUuid(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
    name: file.name,
    type: fileMessageType(file.type),
  };
  const { sealed, previous } = await sealedUploadStart(sealer, toSeal, kept, (key) => defaultOptions.urlStorage.removeUpload(key));
  return { metadata: sealed.metadata, sealed, previous };
}

/** tus reads a sealed file through this: each chunk's records sealed as it is read, never the whole file at once. */
export const sealingReader = (file: File, sealed: Pick<SealedUpload, "fileKey" | "messageId">): FileReader =>
  sealingFileReader(sealed, blobFile(file));

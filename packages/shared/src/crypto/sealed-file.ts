/**
 * A file sealed on the device that sends it (docs/protocol/encryption.md, "File records"): its tus Upload-Metadata (the declared type, the
 * epoch, and its name, preview and key sealed under that epoch, each bound to the message's place) and the fresh key
 * its records are then sealed under (createSealingSource). A resumed upload gets its key back from the metadata tus
 * kept with it; a device showing the file opens the key from the message.
 */
import type { Message } from "../entities.ts";
import { type SealedFileType, sealedUploadMetadataSchema } from "../sealed-uploads.ts";
import { UndecryptableError } from "./errors.ts";
import { importFileKey } from "./file-records.ts";
import type { CryptoKey } from "./key-types.ts";
import { type HeldEpochs, numberedFor, type Sealer, writtenByServer } from "./sealed-message.ts";
import { makeFileKey, openFileKey, type SealedPlace, sealFileKey, sealValue } from "./sealed-value.ts";

export interface FileToSeal {
  /** The file message's id, chosen by the device. */
  id: string;
  date: string;
  time: string;
  name: string;
  type: SealedFileType;
}

/** A sealed upload's metadata and the key its records are sealed under. */
export interface SealedUpload {
  metadata: Record<string, string>;
  /** The file message's id, which each record is bound to. */
  messageId: string;
  fileKey: CryptoKey;
}

type FilePlace = Omit<SealedPlace, "field">;

function filePlace(
  userId: string,
  senderSessionId: string,
  epoch: number,
  file: { id: string; date: string; time: string; type: string },
): FilePlace {
  const { id, date, time, type } = file;
  return { userId, spaceId: userId, messageId: id, type, date, time, senderSessionId, epoch };
}

export async function sealFileUpload(sealer: Sealer, file: FileToSeal): Promise<SealedUpload> {
  const { userId, sessionId, epoch, keys } = sealer;
  const place = filePlace(userId, sessionId, epoch, file);
  const rawKey = makeFileKey();
  // A file's preview is its whole name.
  const [filename, preview, fileKeySealed, fileKey] = await Promise.all([
    sealValue(keys.message, { ...place, field: "filename" }, await numberedFor(sealer, file, file.name)),
    sealValue(keys.message, { ...place, field: "preview" }, file.name),
    sealFileKey(keys.fileKey, place, rawKey),
    importFileKey(rawKey),
  ]);
  const metadata = {
    type: file.type,
    epoch: String(epoch),
    filename,
    preview,
    file_key: fileKeySealed,
    message_id: file.id,
    date: file.date,
    time: file.time,
  };
  return { metadata, messageId: file.id, fileKey };
}

/**
 * The upload this device began before (the metadata tus kept with its URL), ready to go on: its metadata and its
 * record key. Undefined when it cannot go on and must start afresh: it is not a sealed upload, it was sealed under
 * an epoch other than the current one (the server would refuse it at its last byte), or its key does not open.
 */
export async function resumeFileUpload(sealer: Sealer, kept: Record<string, string | null | undefined>): Promise<SealedUpload | undefined> {
  const parsed = sealedUploadMetadataSchema.safeParse(kept);
  if (!parsed.success || parsed.data.epoch !== sealer.epoch) return undefined;
  const { message_id: id, date, time, type, file_key } = parsed.data;
  try {
    const fileKey = await openFileKey(
      sealer.keys.fileKey,
      filePlace(sealer.userId, sealer.sessionId, sealer.epoch, { id, date, time, type }),
      file_key,
    );
    const { filename, preview, epoch } = parsed.data;
    return { metadata: { type, epoch: String(epoch), filename, preview, file_key, message_id: id, date, time }, messageId: id, fileKey };
  } catch (error) {
    if (error instanceof UndecryptableError) return undefined;
    throw error;
  }
}

/** What a device can do with a file message's bytes. */
export type OpenedFile =
  /** Stored in clear (before encryption, or in a discussion): served as it is. */
  | { state: "clear" }
  | { state: "opened"; fileKey: CryptoKey }
  | { state: "locked"; epoch: number }
  | { state: "undecryptable" }
  /** In clear in a keyed account (`writtenByServer`): never saved or passed on as the person's. */
  | { state: "not_encrypted" };

export type SealedFileFields = Pick<Message, "id" | "type" | "date" | "time" | "epoch" | "file_key" | "device"> &
  Partial<Pick<Message, "timestamps">>;

/**
 * The key of a file message's records, as a device showing or saving it opens it from the message; `keyedAt` as for
 * `openMessage`.
 */
export async function openFileMessage(
  userId: string,
  epochs: HeldEpochs,
  message: SealedFileFields,
  keyedAt?: number,
): Promise<OpenedFile> {
  if (writtenByServer(keyedAt, message)) return { state: "not_encrypted" };
  if (message.epoch === undefined) return { state: "clear" };
  const keys = epochs.get(message.epoch);
  if (!keys) return { state: "locked", epoch: message.epoch };
  if (message.file_key === undefined) return { state: "undecryptable" };
  try {
    const place = filePlace(userId, message.device?.id ?? "", message.epoch, message);
    return { state: "opened", fileKey: await openFileKey(keys.fileKey, place, message.file_key) };
  } catch (error) {
    if (error instanceof UndecryptableError) return { state: "undecryptable" };
    throw error;
  }
}

/**
 * What a finished upload becomes: its row and the file message it is sent as. A file in clear is known by its bytes
 * (sniffed type) and its name; a sealed one (docs/protocol/encryption.md, "File records") only by what its device declared and sealed.
 */
import { API, fileMessageType, type RoomUploadMetadata, type SealedUploadMetadata, type UploadMetadata } from "@daysync/shared";
import type { Upload } from "@tus/server";
import type { Clock } from "../../clock.ts";
import type { UploadsTable } from "../../db/schema.ts";
import { notFound } from "../../http/errors.ts";
import type { FileStorage } from "../../storage/file-storage.ts";
import type { DiscussionSendInput } from "../messages/index.ts";
import { detectMime, SNIFF_BYTES } from "./file-kind.ts";

/** What a finished upload stores: its row, and the file message it becomes (in a discussion when named). */
export interface FinishedFile {
  row: UploadsTable;
  message: DiscussionSendInput & { file_url: string };
  discussionId: string | undefined;
}

export function createFinishedFiles(deps: { storage: FileStorage; clock: Clock }) {
  const { storage, clock } = deps;

  /** A file in clear: its type sniffed from its first bytes, its name kept for the download. */
  async function clearFile(userId: string, upload: Upload, meta: UploadMetadata): Promise<FinishedFile> {
    // Gone when its discussion ended just as the last bytes came in.
    const head = await storage.head(upload.id, SNIFF_BYTES).catch(() => undefined);
    if (!head) throw notFound("upload");
    const mime = await detectMime(head);
    const size = upload.size ?? 0;
    const spaceId = meta.discussion_id ?? userId;
    const row = { id: upload.id, user_id: userId, space_id: spaceId, message_id: meta.message_id, filename: meta.filename, mime, size };
    return {
      row: { ...row, created_at: clock.now(), epoch: null },
      message: {
        id: meta.message_id,
        content: "",
        date: meta.date,
        time: meta.time,
        type: fileMessageType(mime),
        filename: meta.filename,
        file_url: API.file(upload.id),
        file_size: size,
      },
      discussionId: meta.discussion_id,
    };
  }

  /** A sealed file: opaque bytes of its declared type; its name, preview and key stay sealed in its message. */
  async function sealedFile(userId: string, upload: Upload, meta: SealedUploadMetadata): Promise<FinishedFile> {
    if ((await storage.size(upload.id)) === undefined) throw notFound("upload");
    const size = upload.size ?? 0;
    const { message_id, epoch } = meta;
    const row = { id: upload.id, user_id: userId, space_id: userId, message_id, filename: "", mime: "application/octet-stream", size };
    return {
      row: { ...row, created_at: clock.now(), epoch },
      message: {
        id: message_id,
        content: "",
        date: meta.date,
        time: meta.time,
        type: meta.type,
        epoch,
        filename: meta.filename,
        preview: meta.preview,
        file_key: meta.file_key,
        file_url: API.file(upload.id),
        file_size: size,
      },
      discussionId: undefined,
    };
  }

  /** A file of an encrypted discussion: opaque records as a sealed file's, its fields sealed under the room's generation. */
  async function roomFile(userId: string, upload: Upload, meta: RoomUploadMetadata): Promise<FinishedFile> {
    if ((await storage.size(upload.id)) === undefined) throw notFound("upload");
    const size = upload.size ?? 0;
    const { message_id, discussion_id } = meta;
    const row = {
      id: upload.id,
      user_id: userId,
      space_id: discussion_id,
      message_id,
      filename: "",
      mime: "application/octet-stream",
      size,
    };
    const { generation, sender_key_id, type, filename, preview, file_key } = meta;
    return {
      row: { ...row, created_at: clock.now(), epoch: null },
      message: {
        ...{ id: message_id, content: "", date: meta.date, time: meta.time, type, generation, sender_key_id },
        ...{ filename, preview, file_key, file_url: API.file(upload.id), file_size: size },
      },
      discussionId: discussion_id,
    };
  }

  return { clearFile, sealedFile, roomFile };
}

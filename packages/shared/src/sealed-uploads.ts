/**
 * A file sealed on the device that sends it (docs/protocol/encryption.md, "File records"), as its tus Upload-Metadata carries it: the
 * declared type, the epoch, and the file's name, preview and key as sealed values of that epoch. No name or type in
 * clear: the server cannot read the bytes, so it neither sniffs nor names them. Discussions stay in clear.
 */
import { z } from "zod";
import { MAX_FILENAME_LENGTH, messageFields } from "./schemas.ts";
import { epochOfSealedValue, sealedValueMaxLength, sealedValueSchema } from "./sealed-messages.ts";

/** What a sealed file declares itself to be: the server shows it as such and never looks inside. */
export const SEALED_FILE_TYPES = ["image", "video", "audio", "file"] as const;
export type SealedFileType = (typeof SEALED_FILE_TYPES)[number];

/** A sealed file key: 32 bytes and the 28 of overhead, in base64url after the envelope's prefix. */
const SEALED_FILE_KEY_MAX_LENGTH = "v1.4294967295.".length + Math.ceil(((32 + 28) * 4) / 3);

/** Upload-Metadata values are text: the epoch comes as digits. */
const epoch = z
  .string({ error: "epoch is required." })
  .regex(/^[1-9][0-9]{0,9}$/, "epoch must be a positive whole number.")
  .transform(Number);

export const sealedUploadMetadataSchema = z
  .object({
    type: z.enum(SEALED_FILE_TYPES, { error: "type must be one of image, video, audio or file." }),
    epoch,
    filename: sealedValueSchema("filename", sealedValueMaxLength(MAX_FILENAME_LENGTH)),
    /** A file's preview is its whole name. */
    preview: sealedValueSchema("preview", sealedValueMaxLength(MAX_FILENAME_LENGTH)),
    file_key: sealedValueSchema("file_key", SEALED_FILE_KEY_MAX_LENGTH),
    message_id: z.uuid("message_id must be a UUID."),
    date: messageFields.date,
    time: messageFields.time,
    filetype: z.never({ error: "A sealed upload has no filetype in clear: declare its type." }).optional(),
    discussion_id: z
      .never({ error: "Files sent to a discussion are not sealed: send them without epoch (discussions stay in clear)." })
      .optional(),
  })
  .refine((m) => [m.filename, m.preview, m.file_key].every((value) => epochOfSealedValue(value) === m.epoch), {
    message: "filename, preview and file_key must be sealed under the upload's epoch.",
    path: ["epoch"],
  });
export type SealedUploadMetadata = z.infer<typeof sealedUploadMetadataSchema>;

/** Whether Upload-Metadata is a sealed upload's: it names an epoch. */
export function isSealedUpload(metadata: Record<string, unknown>): boolean {
  return "epoch" in metadata;
}

/**
 * A file sealed on the device that sends it (decision 020, section 9): its tus Upload-Metadata (the declared type, the
 * epoch, and its name, preview and key sealed under that epoch, each bound to the message's place) and the fresh key
 * its records are then sealed under (createSealingSource).
 */
import type { SealedFileType } from "../sealed-uploads.ts";
import { importFileKey } from "./file-records.ts";
import type { CryptoKey } from "./key-types.ts";
import type { Sealer } from "./sealed-message.ts";
import { makeFileKey, type SealedPlace, sealFileKey, sealValue } from "./sealed-value.ts";

export interface FileToSeal {
  /** The file message's id, chosen by the device. */
  id: string;
  date: string;
  time: string;
  name: string;
  type: SealedFileType;
}

export async function sealFileUpload(sealer: Sealer, file: FileToSeal): Promise<{ metadata: Record<string, string>; fileKey: CryptoKey }> {
  const { userId, sessionId, epoch, keys } = sealer;
  const place = {
    userId,
    spaceId: userId,
    messageId: file.id,
    type: file.type,
    date: file.date,
    time: file.time,
    senderSessionId: sessionId,
    epoch,
  };
  const at = (field: SealedPlace["field"]): SealedPlace => ({ ...place, field });
  const rawKey = makeFileKey();
  // A file's preview is its whole name.
  const [filename, preview, fileKeySealed, fileKey] = await Promise.all([
    sealValue(keys.message, at("filename"), file.name),
    sealValue(keys.message, at("preview"), file.name),
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
  return { metadata, fileKey };
}

/**
 * The record arithmetic of sealed uploads (docs/protocol/encryption.md, "File records"), as the server needs it: a sealed file's length,
 * and the whole records a cut-off PATCH leaves behind. The server never opens a record.
 */
import { plainLength, SEALED_RECORD_SIZE, sealedLength } from "@daysync/shared/crypto";
import { badRequest } from "../../http/errors.ts";

/** A plan's file limit as the sealed upload's Upload-Length is held to. */
export const sealedLimit = (plainLimit: number) => sealedLength(plainLimit);

/** Refuses an Upload-Length that no file seals to (records of 65 564 bytes, the last 28 to 65 564). */
export function assertSealedLength(length: number): void {
  try {
    plainLength(length);
  } catch (error) {
    if (error instanceof RangeError) throw badRequest(`Upload-Length ${length} is no sealed file's length.`, "Upload-Length");
    throw error;
  }
}

/**
 * Where an unfinished sealed upload of `length` bytes that holds `stored` should resume: the last record boundary, so
 * the device seals and sends whole records again. Undefined when it already does (a boundary, or every byte).
 */
export function cutBackTo(stored: number, length: number): number | undefined {
  if (stored >= length) return undefined;
  const whole = stored - (stored % SEALED_RECORD_SIZE);
  return whole === stored ? undefined : whole;
}

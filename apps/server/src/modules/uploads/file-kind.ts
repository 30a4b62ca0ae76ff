import { fileTypeFromBuffer } from "file-type";

/** Bytes read from the start of a file to recognise its type. */
export const SNIFF_BYTES = 4100;

/** Content type from the file's own bytes (never from its name or the client's word). */
export async function detectMime(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? "application/octet-stream";
}

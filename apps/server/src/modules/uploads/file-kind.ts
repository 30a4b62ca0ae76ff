import type { MessageType } from "@daysync/shared";
import { fileTypeFromBuffer } from "file-type";

/** Bytes read from the start of a file to recognise its type. */
export const SNIFF_BYTES = 4100;

/** Content type from the file's own bytes (never from its name or the client's word). */
export async function detectMime(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? "application/octet-stream";
}

/** The message type of a file: image, video, audio, or file for anything else. */
export function messageTypeOf(mime: string): MessageType {
  if (mime.startsWith("image/") && mime !== "image/svg+xml") return "image";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("audio/")) return "audio";
  return "file";
}

/** The Content-Type a download is served with: media as itself, anything else as plain bytes. */
export function servedContentType(mime: string): string {
  return messageTypeOf(mime) === "file" ? "application/octet-stream" : mime;
}

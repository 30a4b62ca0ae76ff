/**
 * What a file is shown as, from its MIME type: the server's rule for files it sniffs, and the devices' rule for
 * files they seal (the server cannot look inside those, so the device declares the type).
 */
import type { SealedFileType } from "./sealed-uploads.ts";

/** Image, video, audio, or file for anything else; an SVG is a file, since it can carry script. */
export function fileMessageType(mime: string): SealedFileType {
  if (mime.startsWith("image/") && mime !== "image/svg+xml") return "image";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("audio/")) return "audio";
  return "file";
}

/** The Content-Type a file is served with: media as itself, anything else as plain bytes. */
export function servedContentType(mime: string): string {
  return fileMessageType(mime) === "file" ? "application/octet-stream" : mime;
}

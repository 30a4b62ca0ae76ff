/**
 * "Send to Daysync" on an image: its bytes fetched by the background (the page's own copy is out of reach), sealed as
 * a file with the send pipeline, record by record as tus reads them, exactly as the app and its share target do, and
 * uploaded with the extension's token. Sent at once: an image that cannot go now is said, not kept.
 */
import { type Sealer, uploadSealedOnce } from "@daysync/send";
import { API, fileMessageType, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { apiRequestOf } from "../../../web/src/lib/api-client.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import type { Session } from "./extension-session.ts";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
};

/** The file name an image is sent under: the last part of its address, or "image" with its type's extension. */
export function imageName(src: string, type: string): string {
  let last = "";
  try {
    const url = new URL(src);
    if (url.protocol !== "data:" && url.protocol !== "blob:") last = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
  } catch {
    last = "";
  }
  const name = last
    .replace(/[\p{Cc}/\\]/gu, "")
    .trim()
    .slice(0, 200);
  return name || `image.${EXTENSIONS[type] ?? "img"}`;
}

/** Fetches the image; a sentence saying why when it cannot be read. */
async function fetchImage(src: string): Promise<File | string> {
  try {
    const res = await fetch(src, { credentials: "omit" });
    if (!res.ok) return EXTENSION_TEXT.imageUnreadable;
    const blob = await res.blob();
    return new File([blob], imageName(src, blob.type), { type: blob.type });
  } catch {
    return EXTENSION_TEXT.imageUnreadable;
  }
}

/** Sends the image at `src` to today; undefined once stored, or the sentence saying why not. */
export async function sendImage(session: Session, src: string): Promise<string | undefined> {
  const file = await fetchImage(src);
  if (typeof file === "string") return file;
  const sealing = await session.keys.sealer();
  if (!("sealer" in sealing)) return sealing.waiting ?? EXTENSION_TEXT.notReady;
  const sealer: Sealer = sealing.sealer;
  const now = new Date();
  const toSeal = {
    id: crypto.randomUUID(),
    date: formatStoredDate(now),
    time: formatStoredTime(now),
    name: file.name,
    type: fileMessageType(file.type),
  };
  const target = apiRequestOf(API.uploads);
  try {
    await uploadSealedOnce(sealer, file, toSeal, target);
  } catch {
    return EXTENSION_TEXT.imageNotSent;
  }
  await session.keys.stored(toSeal.id);
  return undefined;
}

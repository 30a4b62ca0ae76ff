/**
 * Sealed files (docs/protocol/encryption.md, "File records") as this browser reads them, in the service worker and in the page alike:
 * the worker's own route for a file message (its link carries only what the server already has: sealed values,
 * never a clear name), and opening a message's name, key and bytes into a stream of plaintext, whole or a range.
 * A personal file opens with the account's epochs; a file of an encrypted discussion (its link names the discussion)
 * with the room's generations; everything after the name and key is the same.
 */
import { type DiscussionMessage, type Message, SEALED_FILE_TYPES } from "@daysync/shared";
import {
  type CryptoKey,
  type HeldEpochs,
  openFileMessage,
  openMessage,
  openRecordStream,
  openRoomFileKey,
  openRoomMessage,
  plainLength,
  type RoomKeys,
  recordsForPlainRange,
  UndecryptableError,
} from "@daysync/shared/crypto";
import { z } from "zod";
import { apiRequestOf } from "../api-client.ts";

/** The worker's route: `/sealed-files/<message id>?…`. A request it does not catch reaches the server as a 404. */
export const SEALED_FILES_PATH = "/sealed-files/";

/** Images up to this size open in the page for thumbnails and the lightbox; larger ones show as files. */
export const THUMBNAIL_LIMIT = 25 * 1024 * 1024;

/** What the route needs of a file message: the fields the server sent, all of them sealed or not secret. */
export type SealedFileMessage = Pick<Message, "id" | "date" | "time" | "filename" | "file_url"> & {
  type: (typeof SEALED_FILE_TYPES)[number];
  /** The account epoch it is sealed under; a room file's key generation. */
  epoch: number;
  preview: string;
  file_key: string;
  /** The sealed size. */
  file_size: number;
  /** The session that sealed it (the message's device); a room file's sender member key id. */
  sender: string;
  /** A file of this encrypted discussion (its id), opened with the room's keys. */
  discussion?: string | undefined;
};

const linkSchema = z.object({
  id: z.string().min(1),
  type: z.enum(SEALED_FILE_TYPES),
  epoch: z.coerce.number().int().positive(),
  date: z.string().min(1),
  time: z.string().min(1),
  filename: z.string().min(1),
  preview: z.string().min(1),
  file_key: z.string().min(1),
  file_size: z.coerce.number().int().nonnegative(),
  // Only the server's own files route: the worker fetches nothing else in the user's name.
  file_url: z.string().regex(/^\/api\/files\/[\w-]+$/),
  sender: z.string(),
  discussion: z.uuid().optional(),
});

/** The fields of a stored message that make a sealed file's link, or undefined for one that is not a sealed file. */
export function sealedFileOf(
  message: Pick<Message, "id" | "type" | "date" | "time" | "filename" | "file_url" | "epoch" | "preview" | "file_key" | "file_size"> & {
    device?: Pick<NonNullable<Message["device"]>, "id">;
  },
): SealedFileMessage | undefined {
  const parsed = linkSchema.safeParse({ ...message, sender: message.device?.id ?? "" });
  return parsed.success ? parsed.data : undefined;
}

/** The fields of an encrypted discussion's file message that make its link, or undefined for one that is not such a file. */
export function roomFileOf(
  discussionId: string,
  message: Pick<
    DiscussionMessage,
    "id" | "type" | "date" | "time" | "filename" | "file_url" | "generation" | "sender_key_id" | "preview" | "file_key" | "file_size"
  >,
): SealedFileMessage | undefined {
  const { generation, sender_key_id, ...fields } = message;
  const parsed = linkSchema.safeParse({ ...fields, epoch: generation, sender: sender_key_id, discussion: discussionId });
  return parsed.success ? parsed.data : undefined;
}

/** The worker's route for a sealed file: same origin, so the page's links and players reach it. */
export function sealedFileLink(file: SealedFileMessage): string {
  const { id, ...fields } = file;
  const params = Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]));
  return `${SEALED_FILES_PATH}${encodeURIComponent(id)}?${new URLSearchParams(params)}`;
}

/** The file a worker route's URL names, or undefined for a malformed one. */
export function readSealedFileLink(url: URL): SealedFileMessage | undefined {
  if (!url.pathname.startsWith(SEALED_FILES_PATH)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(url.pathname.slice(SEALED_FILES_PATH.length));
  } catch {
    return undefined;
  }
  const parsed = linkSchema.safeParse({ ...Object.fromEntries(url.searchParams), id });
  return parsed.success ? parsed.data : undefined;
}

export type OpenedFile =
  | { state: "locked" }
  | { state: "undecryptable" }
  | { state: "opened"; name: string; size: number; contentType: string; fileKey: CryptoKey };

/** Which keys open a file: the account's epochs this device holds (a personal file), or a room's generations. */
export type FileKeys = { userId: string; epochs: HeldEpochs } | { room: ReadonlyMap<number, RoomKeys> };

type NameAndKey = { state: "locked" } | { state: "undecryptable" } | { state: "opened"; name: string; fileKey: CryptoKey };

async function openAccountFile(userId: string, epochs: HeldEpochs, file: SealedFileMessage): Promise<NameAndKey> {
  const message = { ...file, content: "", device: { id: file.sender, name: "" } };
  const [name, key] = await Promise.all([openMessage(userId, epochs, message), openFileMessage(userId, epochs, message)]);
  if (name.state === "locked" || key.state === "locked") return { state: "locked" };
  if (name.state !== "opened" || key.state !== "opened") return { state: "undecryptable" };
  return { state: "opened", name: name.text, fileKey: key.fileKey };
}

async function openRoomFile(held: ReadonlyMap<number, RoomKeys>, file: SealedFileMessage): Promise<NameAndKey> {
  const place = { messageId: file.id, type: file.type, date: file.date, time: file.time, senderKeyId: file.sender };
  try {
    const message = { ...place, id: file.id, generation: file.epoch, content: "", filename: file.filename, preview: file.preview };
    const name = await openRoomMessage(held, message);
    const keys = held.get(file.epoch);
    if (name.state === "locked" || !keys) return { state: "locked" };
    return { state: "opened", name: name.text, fileKey: await openRoomFileKey(keys, place, file.file_key) };
  } catch {
    return { state: "undecryptable" };
  }
}

/** Opens a sealed file's name and key with the keys this device holds (its account's, or its discussion's). */
export async function openSealedFile(keys: FileKeys, file: SealedFileMessage): Promise<OpenedFile> {
  const opened = "room" in keys ? await openRoomFile(keys.room, file) : await openAccountFile(keys.userId, keys.epochs, file);
  if (opened.state !== "opened") return opened;
  let size: number;
  try {
    size = plainLength(file.file_size);
  } catch {
    return { state: "undecryptable" };
  }
  return { ...opened, size, contentType: contentTypeOf(opened.name, file.type) };
}

/** The sealed bytes could not be fetched: the server's status (404 once the file is gone), or 0 offline. */
export class FileFetchError extends Error {
  constructor(readonly status: number) {
    super(status ? `The file answered ${status}` : "The file could not be fetched");
  }
}

/**
 * Plaintext bytes [start, end) of an opened file, streamed: only the records that hold them are fetched (a Range
 * in sealed coordinates) and opened. The stream errors (UndecryptableError) on a record that fails; FileFetchError
 * when the sealed bytes cannot be fetched.
 */
export async function plainBytes(
  file: SealedFileMessage,
  opened: Extract<OpenedFile, { state: "opened" }>,
  range: { start: number; end: number } = { start: 0, end: opened.size },
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const records = recordsForPlainRange(opened.size, range.start, range.end);
  const whole = records.sealedStart === 0 && records.sealedEnd === file.file_size;
  const request = apiRequestOf(file.file_url);
  const res = await fetch(request.url, {
    credentials: request.credentials,
    headers: { ...request.headers, ...(whole ? {} : { range: `bytes=${records.sealedStart}-${records.sealedEnd - 1}` }) },
    signal,
  }).catch(() => {
    throw new FileFetchError(0);
  });
  if (!res.body || res.status !== (whole ? 200 : 206)) throw new FileFetchError(res.status);
  return res.body
    .pipeThrough(openRecordStream(opened.fileKey, file.id, file.file_size, records))
    .pipeThrough(slice(range.start - records.plainStart, range.end - range.start));
}

/** Passes on `length` bytes after the first `skip`. */
function slice(skip: number, length: number): TransformStream<Uint8Array, Uint8Array> {
  let at = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(0, skip - at);
      const to = Math.min(chunk.length, skip + length - at);
      at += chunk.length;
      if (to > from) controller.enqueue(chunk.subarray(from, to));
    },
  });
}

/** An opened file whole, in memory (thumbnails, and a download with no worker to stream it). */
export async function plainBlob(file: SealedFileMessage, opened: Extract<OpenedFile, { state: "opened" }>, signal?: AbortSignal) {
  // Read here rather than through a Response, which would turn the stream's UndecryptableError into a TypeError.
  const reader = (await plainBytes(file, opened, undefined, signal)).getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(new Uint8Array(read.value));
  return new Blob(parts, { type: opened.contentType });
}

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
  heic: "image/heic",
  bmp: "image/bmp",
  mp4: "video/mp4",
  m4v: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
  mkv: "video/x-matroska",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  wav: "audio/wav",
  flac: "audio/flac",
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
};

/**
 * The content type a sealed file is served with, from its name's extension; one that does not fit the declared type
 * (an image named .txt) or is unknown is served as bytes to save, never as something the browser would render.
 */
export function contentTypeOf(name: string, declared: SealedFileMessage["type"]): string {
  const type = TYPES[/\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? ""];
  if (!type || type === "image/svg+xml") return "application/octet-stream";
  const major = type.split("/")[0];
  if (declared !== "file" && major !== declared) return "application/octet-stream";
  return type;
}

/** An attachment header with the real name (RFC 6266 / 5987), an ASCII stand-in first for old readers. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A Range header's single range in an `size`-byte file; "none" to serve it whole, "unsatisfiable" for 416. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | "none" | "unsatisfiable" {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  // No Range, several ranges, or one we do not read: the whole file (RFC 9110 lets a server ignore Range).
  if (!match) return "none";
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return "none";
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(from);
  if (start >= size) return "unsatisfiable";
  const end = to === "" ? size : Math.min(size, Number(to) + 1);
  return end > start ? { start, end } : "none";
}

/** A sealed file's size in clear, from its sealed size; undefined for a size no sealed file has. */
export function plainSizeOf(sealed: number): number | undefined {
  try {
    return plainLength(sealed);
  } catch {
    return undefined;
  }
}

/** Opens a sealed file whole into a Blob; UndecryptableError for one that does not open here, or a record that fails. */
export async function openWholeFile(keys: FileKeys, file: SealedFileMessage, signal?: AbortSignal) {
  const opened = await openSealedFile(keys, file);
  if (opened.state !== "opened") throw new UndecryptableError(`A file that is ${opened.state} here`);
  return { blob: await plainBlob(file, opened, signal), name: opened.name };
}

/** Whether a file failed to open (rather than to arrive). */
export const isUndecryptable = (error: unknown): boolean => error instanceof UndecryptableError;

/**
 * A file message's bytes as `get` and `watch --exec` read them (docs/protocol/encryption.md, "File records"): a file in clear as the
 * server sends it; a sealed one opened record by record while it streams, with the key its message carries, so
 * memory stays bounded and a record that does not open ends the stream before anything after it.
 */
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Message } from "@daysync/shared";
import { SEALED_TEXT } from "@daysync/shared";
import { type CryptoKey, openRecordStream, UndecryptableError } from "@daysync/shared/crypto";
import { type ApiClient, ApiError } from "../api-client.ts";
import { CliError, EXIT, messageGone } from "../errors.ts";
import type { MessageKeys } from "./message-keys.ts";
import { nodeRecords } from "./node-records.ts";
import { plainFileSize } from "./shown-messages.ts";

/** What opens a sealed file's records; commands hold it without looking inside. */
export type FileKey = CryptoKey;

export const undecryptable = () => new CliError(SEALED_TEXT.undecryptable, EXIT.undecryptable);

/** The key a sealed file's records open with, or why this terminal cannot open them; undefined for a file in clear. */
export async function fileKeyOf(keys: MessageKeys, message: Message): Promise<FileKey | undefined> {
  const opened = await keys.openFile(message);
  switch (opened.state) {
    case "clear":
      return undefined;
    case "opened":
      return opened.fileKey;
    case "locked":
      throw new CliError(SEALED_TEXT.locked, EXIT.locked);
    case "undecryptable":
      throw undecryptable();
    case "not_encrypted":
      throw new CliError(SEALED_TEXT.notEncrypted, EXIT.undecryptable);
  }
}

export interface FileBytes {
  /** The file's plain bytes; for a sealed file it errors (UndecryptableError) on a record that does not open. */
  body: Readable;
  /** Its length in plain bytes, or 0 when the server does not say. */
  size: number;
}

/** Starts the download of a file message, opening it as it comes with `fileKey` when it is sealed. */
export async function fetchFileBytes(api: ApiClient, message: Message, fileKey: FileKey | undefined): Promise<FileBytes> {
  let res: Response;
  try {
    res = await api.fetch("GET", message.file_url, { timeoutMs: 0 });
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? messageGone(message.id) : error;
  }
  if (!res.body) throw new CliError(`${api.server} sent no file.`);
  const length = Number(res.headers.get("content-length")) || 0;
  const body = res.body as WebReadableStream<Uint8Array>;
  if (!fileKey) return { body: Readable.fromWeb(body), size: length };
  // The records' layout follows from the sealed length: one no file seals to cannot be what was sent.
  const sealedLength = length || message.file_size || 0;
  const size = plainFileSize(sealedLength);
  if (size === undefined) {
    await body.cancel().catch(() => undefined);
    throw undecryptable();
  }
  const opening = openRecordStream(fileKey, message.id, sealedLength, undefined, nodeRecords) as unknown as TransformStream<
    Uint8Array,
    Uint8Array
  >;
  return { body: Readable.fromWeb(body.pipeThrough(opening) as WebReadableStream<Uint8Array>), size };
}

/** What a download that stopped says: a record that did not open is the sentence every device says; else why it stopped. */
export function downloadError(error: unknown, name: string): CliError {
  if (isUndecryptableError(error)) return undecryptable();
  if (error instanceof CliError) return error;
  return new CliError(`The download of ${name} failed: ${(error as Error).message}`);
}

function isUndecryptableError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof UndecryptableError) return true;
  }
  return false;
}

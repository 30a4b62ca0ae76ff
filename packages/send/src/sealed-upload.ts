/**
 * A file to the user's own days, sealed on this device (docs/protocol/encryption.md, "File records") and sent over
 * tus: its name and record key sealed under the account's current epoch, its bytes sealed record by record as tus
 * asks for each chunk, so no file is ever held whole. A kept upload (tus URL storage) goes on under the key its kept
 * metadata opens to, so no raw key is stored anywhere.
 */
import {
  type Bytes,
  createSealingSource,
  type FileToSeal,
  RECORD_SIZE,
  type RecordCipher,
  readFrom,
  resumeFileUpload,
  SEALED_RECORD_SIZE,
  type SealedUpload,
  type Sealer,
  sealFileUpload,
} from "@daysync/shared/crypto";
import type { PreviousUpload, UploadOptions } from "tus-js-client";

export type { FileToSeal, SealedUpload };

/** Records per PATCH: every PATCH starts on a record boundary; 128 of them are about 8 MiB. */
export const RECORDS_PER_PATCH = 128;
/** tus's chunk size for a sealed file. */
export const SEALED_CHUNK_SIZE = RECORDS_PER_PATCH * SEALED_RECORD_SIZE;

/** Sealed bytes sent, as the plain bytes they carry (each record's overhead taken off), for a progress bar. */
export function plainBytesOf(sealedSent: number, plainSize: number): number {
  const overhead = (SEALED_RECORD_SIZE - RECORD_SIZE) * Math.ceil(sealedSent / SEALED_RECORD_SIZE);
  return Math.min(plainSize, Math.max(0, sealedSent - overhead));
}

export type FileReader = NonNullable<UploadOptions["fileReader"]>;

/**
 * The upload kept for the same file when it can go on under the current epoch (its key opened from its kept
 * metadata), newest first; the kept ones that cannot are forgotten. Else the file sealed afresh.
 */
export async function sealedUploadStart(
  sealer: Sealer,
  file: FileToSeal,
  kept: readonly PreviousUpload[],
  forget: (urlStorageKey: string) => Promise<void>,
): Promise<{ sealed: SealedUpload; previous?: PreviousUpload }> {
  for (const previous of kept) {
    const sealed = await resumeFileUpload(sealer, previous.metadata);
    if (sealed) return { sealed, previous };
    await forget(previous.urlStorageKey);
  }
  return { sealed: await sealFileUpload(sealer, file) };
}

/** Where a client reads a file's plain bytes and how it hands tus a chunk. */
export interface PlainFile {
  /** The file's plain length. */
  size: number;
  /** Fills `into` with the plain bytes from `start` (a Blob's slice in the browser, a file handle's read in Node). */
  read(start: number, end: number, into: Bytes): Promise<void>;
  /** What tus sends for a chunk: a Blob in the browser (which copies), a Buffer view with `size` in Node. */
  chunk(bytes: Bytes): unknown;
  /** A faster record cipher than Web Crypto's, where the platform has one. */
  cipher?: RecordCipher;
  /** Seal the next range while this one is sent (Node); a page seals only what tus asks for, as it always has. */
  sealAhead?: boolean;
}

/**
 * tus-js-client's source for a sealed file: the records of each range tus asks for, sealed as they are read. With
 * `sealAhead`, the next range is sealed while this one is sent: tus asks for ranges one after another, each once the
 * last is in.
 */
export function sealingFileReader(sealed: Pick<SealedUpload, "fileKey" | "messageId">, file: PlainFile): FileReader {
  const source = createSealingSource({
    fileKey: sealed.fileKey,
    messageId: sealed.messageId,
    plainLength: file.size,
    read: file.read,
    ...(file.cipher ? { cipher: file.cipher } : {}),
  });
  // Ranges are sealed into buffers used again, not new ones: a GiB sent through new ones kept the garbage collector
  // busy for a second (bench/upload-throughput.md). A range's buffer comes back only once the server holds all of it
  // (tus asks for the range that follows it): until then a request may still be sending from it.
  const spare: Bytes[] = [];
  const seal = (start: number, end: number) => {
    const found = spare.pop();
    const buffer = found && found.length >= end - start ? found : new Uint8Array(end - start);
    const bytes = source.slice(start, end, buffer);
    bytes.catch(() => undefined);
    return { start, end, buffer, bytes };
  };
  let ahead: ReturnType<typeof seal> | undefined;
  let sending: { end: number; buffer: Bytes } | undefined;
  return {
    openFile: async () => ({
      size: source.size,
      slice: async (start: number, end: number) => {
        const stop = Math.min(end, source.size);
        if (sending?.end === start) spare.push(sending.buffer);
        sending = undefined;
        // One sealed ahead for a range tus did not ask for is left to the collector: it may still be sealing.
        const next = ahead?.start === start && ahead.end === stop ? ahead : seal(start, stop);
        ahead = file.sealAhead && stop < source.size ? seal(stop, Math.min(source.size, stop + (stop - start))) : undefined;
        const bytes = await next.bytes;
        sending = { end: stop, buffer: next.buffer };
        return { value: file.chunk(bytes), done: end >= source.size };
      },
      close: () => undefined,
    }),
  };
}

/** A Blob's bytes for tus (the browser, the service worker): each chunk handed over as a Blob, which copies it. */
export const blobFile = (blob: Blob): PlainFile => ({ size: blob.size, read: readFrom(blob), chunk: (bytes) => new Blob([bytes]) });

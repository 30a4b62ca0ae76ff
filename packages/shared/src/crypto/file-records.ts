/**
 * File bytes in records (docs/protocol/encryption.md, "File records"). The plaintext is cut into records of 65 536 bytes (the last
 * shorter; an empty file is one empty record). Each sealed record is `nonce (12) ‖ ciphertext ‖ tag (16)`, AES-256-GCM
 * under the file's key with a fresh random nonce, so a full record is 65 564 bytes.
 *
 * Associated data of record i, as bytes (length of the message id's UTF-8 + 24):
 *   UTF-8 "daysync/v1/file|<message id>|"  then  i as 8 bytes big-endian  then  "|"  then  one byte, 1 if final else 0.
 * Index and final flag play STREAM's counter: a record moved, dropped, repeated or cut off, or a file ending on a
 * record not marked final, fails to open.
 */
import { type Bytes, utf8 } from "./encoding.ts";
import { UndecryptableError } from "./errors.ts";
import type { CryptoKey } from "./key-types.ts";
import { importAesKey, openBytes, SEAL_OVERHEAD, sealApart } from "./primitives.ts";

export const RECORD_SIZE = 65_536;
export const RECORD_OVERHEAD = SEAL_OVERHEAD;
export const SEALED_RECORD_SIZE = RECORD_SIZE + RECORD_OVERHEAD;
/** Records sealed or opened at once: enough to keep the crypto jobs busy while bytes move, at 64 KiB each. */
const RECORDS_AT_ONCE = 8;

/** A file's raw key (as opened from its sealed `file_key`, or just made) as the key its records use. */
export const importFileKey = importAesKey;

/**
 * How records are sealed and opened: AES-256-GCM as `nonce ‖ ciphertext ‖ tag`, failures to open as
 * UndecryptableError. WebCrypto by default; in Node the CLI passes `node:crypto`'s, which does a record on the
 * calling thread instead of a job on the thread pool and back, about twice as fast at 64 KiB (bench/upload-throughput.md).
 */
export interface RecordCipher {
  /** Seals into `into`, which is exactly the sealed record's length: a range's records go straight to their places. */
  seal(key: CryptoKey, aad: Bytes, plaintext: Bytes, into: Bytes): void | Promise<void>;
  open(key: CryptoKey, aad: Bytes, sealed: Bytes, what: string): Bytes | Promise<Bytes>;
}

export const webCryptoRecords: RecordCipher = {
  async seal(key, aad, plaintext, into) {
    const [nonce, sealed] = await sealApart(key, aad, plaintext);
    into.set(nonce);
    into.set(sealed, nonce.length);
  },
  open: openBytes,
};

export function recordCount(plainLength: number): number {
  return Math.max(1, Math.ceil(plainLength / RECORD_SIZE));
}

export function sealedLength(plainLength: number): number {
  if (!Number.isSafeInteger(plainLength) || plainLength < 0) throw new RangeError("A file length is a whole number of bytes");
  return plainLength + RECORD_OVERHEAD * recordCount(plainLength);
}

/** The inverse of sealedLength; RangeError for a length no file seals to. */
export function plainLength(sealed: number): number {
  if (!Number.isSafeInteger(sealed) || sealed < RECORD_OVERHEAD) throw new RangeError(`${sealed} bytes is no sealed file's length`);
  const count = Math.ceil(sealed / SEALED_RECORD_SIZE);
  const plain = sealed - count * RECORD_OVERHEAD;
  if (sealedLength(plain) !== sealed) throw new RangeError(`${sealed} bytes is no sealed file's length`);
  return plain;
}

export function recordAad(messageId: string, index: number, final: boolean): Bytes {
  return recordAadAfter(recordAadPrefix(messageId), index, final);
}

/** The part of every record's associated data its message fixes: made once per file rather than once per record. */
const recordAadPrefix = (messageId: string): Bytes => utf8(`daysync/v1/file|${messageId}|`);

function recordAadAfter(prefix: Bytes, index: number, final: boolean): Bytes {
  const aad = new Uint8Array(prefix.length + 10);
  aad.set(prefix);
  const tail = new DataView(aad.buffer, prefix.length);
  tail.setBigUint64(0, BigInt(index));
  tail.setUint8(8, 0x7c); // "|"
  tail.setUint8(9, final ? 1 : 0);
  return aad;
}

export async function sealRecord(
  fileKey: CryptoKey,
  messageId: string,
  index: number,
  final: boolean,
  plaintext: Bytes,
  cipher: RecordCipher = webCryptoRecords,
): Promise<Bytes> {
  const sealed = new Uint8Array(plaintext.length + RECORD_OVERHEAD);
  await sealWith(cipher, fileKey, recordAad(messageId, index, final), final, plaintext, sealed);
  return sealed;
}

async function sealWith(cipher: RecordCipher, fileKey: CryptoKey, aad: Bytes, final: boolean, plaintext: Bytes, into: Bytes) {
  if (plaintext.length > RECORD_SIZE || (!final && plaintext.length !== RECORD_SIZE))
    throw new RangeError("Only the final record is short");
  await cipher.seal(fileKey, aad, plaintext, into);
}

export function openRecord(
  fileKey: CryptoKey,
  messageId: string,
  index: number,
  final: boolean,
  sealed: Bytes,
  cipher: RecordCipher = webCryptoRecords,
): Promise<Bytes> {
  return openWith(cipher, fileKey, recordAad(messageId, index, final), sealed, index);
}

/** A record opened, a failure (even one the cipher throws at once) as the promise's rejection. */
async function openWith(cipher: RecordCipher, fileKey: CryptoKey, aad: Bytes, sealed: Bytes, index: number): Promise<Bytes> {
  return cipher.open(fileKey, aad, sealed, `File record ${index}`);
}

/** Whole records covering a range, in both coordinates; ends are exclusive, `lastRecord` inclusive. */
export interface RecordRange {
  firstRecord: number;
  lastRecord: number;
  plainStart: number;
  plainEnd: number;
  sealedStart: number;
  sealedEnd: number;
}

function recordRange(plain: number, firstRecord: number, lastRecord: number): RecordRange {
  const final = recordCount(plain) - 1;
  return {
    firstRecord,
    lastRecord,
    plainStart: firstRecord * RECORD_SIZE,
    plainEnd: lastRecord === final ? plain : (lastRecord + 1) * RECORD_SIZE,
    sealedStart: firstRecord * SEALED_RECORD_SIZE,
    sealedEnd: lastRecord === final ? sealedLength(plain) : (lastRecord + 1) * SEALED_RECORD_SIZE,
  };
}

/**
 * The records holding plaintext bytes [start, end) of a file of `plain` bytes (a player's Range): fetch
 * sealedStart..sealedEnd, open, and drop `start - plainStart` bytes in front. An empty range maps to the record at start.
 */
export function recordsForPlainRange(plain: number, start: number, end: number): RecordRange {
  if (!(0 <= start && start <= end && end <= plain)) throw new RangeError(`No range ${start}-${end} in ${plain} bytes`);
  const final = recordCount(plain) - 1;
  const firstRecord = Math.min(Math.floor(start / RECORD_SIZE), final);
  return recordRange(plain, firstRecord, Math.max(firstRecord, Math.min(Math.ceil(end / RECORD_SIZE) - 1, final)));
}

/**
 * The records of sealed bytes [start, end) (a tus slice): start on a record boundary, end on one or at the sealed
 * length; an end past the sealed length is cut to it. RangeError otherwise.
 */
export function recordsForSealedRange(plain: number, start: number, end: number): RecordRange {
  const total = sealedLength(plain);
  const stop = Math.min(end, total);
  const aligned = start % SEALED_RECORD_SIZE === 0 && (stop % SEALED_RECORD_SIZE === 0 || stop === total);
  if (!aligned || start >= stop) throw new RangeError(`Sealed range ${start}-${end} is not whole records of ${total} bytes`);
  return recordRange(plain, start / SEALED_RECORD_SIZE, Math.ceil(stop / SEALED_RECORD_SIZE) - 1);
}

/**
 * A source of sealed bytes for an upload (tus-js-client's fileReader): `slice` seals the records of a record-aligned
 * sealed range from plaintext that `read(start, end, into)` puts in `into` (every byte of it, or it throws). Each call
 * seals afresh with new nonces, so a resumed upload that reads a changed file never reuses a nonce. `slice` seals into
 * `into` when given (at least the range's length; the CLI reuses its buffers), else into a new one.
 */
export function createSealingSource(options: {
  fileKey: CryptoKey;
  messageId: string;
  plainLength: number;
  read: (start: number, end: number, into: Bytes) => Promise<void>;
  cipher?: RecordCipher;
}): { size: number; slice: (start: number, end: number, into?: Bytes) => Promise<Bytes> } {
  const { fileKey, messageId, plainLength: plain, read, cipher = webCryptoRecords } = options;
  const final = recordCount(plain) - 1;
  const size = sealedLength(plain);
  const aadPrefix = recordAadPrefix(messageId);

  async function sealRange(start: number, end: number, into?: Bytes): Promise<Bytes> {
    const range = recordsForSealedRange(plain, start, end);
    const length = range.sealedEnd - range.sealedStart;
    if (into && into.length < length) throw new RangeError(`A buffer of ${into.length} bytes for ${length} sealed bytes`);
    const sealed = into ? into.subarray(0, length) : new Uint8Array(length);
    // The plaintext is read into the range's tail and each record sealed to its place from the front, so a range
    // needs no buffer for its plaintext (a GiB sent made 2 GiB of garbage, bench/upload-throughput.md). A sealed
    // record ends at most where the next record's plaintext starts (each record before it adds RECORD_OVERHEAD, and
    // the tail leaves room for all of them), and a cipher takes its input's bytes when it is called.
    const plaintext = sealed.subarray(length - (range.plainEnd - range.plainStart));
    await read(range.plainStart, range.plainEnd, plaintext);
    // A few records at a time, as opening does: each encrypt is a job off the main thread.
    for (let first = range.firstRecord; first <= range.lastRecord; first += RECORDS_AT_ONCE) {
      const last = Math.min(first + RECORDS_AT_ONCE - 1, range.lastRecord);
      const group = [];
      for (let index = first; index <= last; index++) {
        const at = (index - range.firstRecord) * RECORD_SIZE;
        const record = plaintext.subarray(at, at + RECORD_SIZE);
        const sealedAt = (index - range.firstRecord) * SEALED_RECORD_SIZE;
        const place = sealed.subarray(sealedAt, sealedAt + record.length + RECORD_OVERHEAD);
        group.push(sealWith(cipher, fileKey, recordAadAfter(aadPrefix, index, index === final), index === final, record, place));
      }
      await Promise.all(group);
    }
    return sealed;
  }

  return { size, slice: sealRange };
}

/** A sealing source's `read` over a file in memory or a Blob; RangeError when the file changed size while it was read. */
export function readFrom(file: Blob | Uint8Array): (start: number, end: number, into: Bytes) => Promise<void> {
  return async (start, end, into) => {
    const bytes = file instanceof Uint8Array ? file.subarray(start, end) : new Uint8Array(await file.slice(start, end).arrayBuffer());
    if (bytes.length !== into.length) throw new RangeError("The file changed size while it was read");
    into.set(bytes);
  };
}

/**
 * Opens a sealed file while it streams: takes chunks cut anywhere, opens whole records in order and passes their
 * plaintext on. Errors (UndecryptableError) on a record that does not open, on bytes past the last record, and on an
 * end before it. `range` (from recordsForPlainRange or recordsForSealedRange) opens only those records; by default
 * the whole file, whose last record must be marked final.
 */
export function openRecordStream(
  fileKey: CryptoKey,
  messageId: string,
  sealedTotal: number,
  range?: Pick<RecordRange, "firstRecord" | "lastRecord">,
  cipher: RecordCipher = webCryptoRecords,
): TransformStream<Uint8Array, Uint8Array> {
  const plain = plainLength(sealedTotal);
  const final = recordCount(plain) - 1;
  const lastRecord = range?.lastRecord ?? final;
  let index = range?.firstRecord ?? 0;
  const sizeOf = (i: number) => (i === final ? sealedTotal - final * SEALED_RECORD_SIZE : SEALED_RECORD_SIZE);
  const aadPrefix = recordAadPrefix(messageId);
  // One buffer gathers every record in turn. A cipher takes its input's bytes when it is called (WebCrypto copies them
  // at the call, as its specification says; nodeRecords opens on the spot), so the next record may overwrite them.
  // A fresh buffer for each record cost about 5% of a sealed download (bench/upload-throughput.md).
  const gathering = new Uint8Array(SEALED_RECORD_SIZE);
  let record = gathering.subarray(0, sizeOf(index));
  let filled = 0;
  // Records open a few at a time while more bytes arrive (WebCrypto's decrypts are jobs off the main thread), passed on
  // in order.
  const opening: Promise<Bytes>[] = [];
  const passOn = async (controller: TransformStreamDefaultController<Uint8Array>, keep: number) => {
    while (opening.length > keep) {
      const next = opening.shift();
      if (next) controller.enqueue(await next);
    }
  };

  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      let at = 0;
      while (at < chunk.length) {
        if (index > lastRecord) throw new UndecryptableError(`File bytes after record ${lastRecord}`);
        const take = Math.min(record.length - filled, chunk.length - at);
        record.set(chunk.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === record.length) {
          const opened = openWith(cipher, fileKey, recordAadAfter(aadPrefix, index, index === final), record, index);
          // Awaited in turn by passOn; until then a failure must not count as unhandled.
          opened.catch(() => undefined);
          opening.push(opened);
          await passOn(controller, RECORDS_AT_ONCE - 1);
          filled = 0;
          index++;
          if (index <= lastRecord) record = gathering.subarray(0, sizeOf(index));
        }
      }
    },
    async flush(controller) {
      await passOn(controller, 0);
      if (index <= lastRecord) throw new UndecryptableError(`A file cut off before record ${index}`);
    },
  });
}

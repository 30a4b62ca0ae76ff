import { describe, expect, it } from "vitest";
import { type Bytes, concatBytes, toBase64Url } from "./encoding.ts";
import { UndecryptableError } from "./errors.ts";
import {
  createSealingSource,
  importFileKey,
  openRecord,
  openRecordStream,
  plainLength,
  RECORD_SIZE,
  readFrom,
  recordAad,
  recordsForPlainRange,
  recordsForSealedRange,
  SEALED_RECORD_SIZE,
  sealedLength,
  sealRecord,
} from "./file-records.ts";
import { makeFileKey } from "./sealed-value.ts";

const R = RECORD_SIZE;
const S = SEALED_RECORD_SIZE;
const SIZES = [0, 1, R - 1, R, R + 1, 3 * R];

function fileOf(size: number): Bytes {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 16)) & 0xff;
  return bytes;
}

async function sealWhole(size: number, messageId = "m_1") {
  const fileKey = await importFileKey(makeFileKey());
  const plain = fileOf(size);
  const source = createSealingSource({
    fileKey,
    messageId,
    plainLength: size,
    read: readFrom(plain),
  });
  return { fileKey, plain, source, sealed: await source.slice(0, source.size) };
}

/** Pushes `chunks` through the opening stream and collects what comes out (or the error). */
async function openChunks(stream: TransformStream<Uint8Array, Uint8Array>, chunks: Uint8Array[]): Promise<Bytes> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const out: Uint8Array[] = [];
  const reader = input.pipeThrough(stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(...out);
    out.push(value);
  }
}

/** Large arrays compared as strings: vitest's element-by-element equality takes seconds on 200 kB. */
const b64 = (bytes: Uint8Array) => toBase64Url(bytes);

function cut(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe("file records", () => {
  it("lays out the associated data as the prefix, 8 index bytes big-endian, | and the final byte", () => {
    const aad = recordAad("m_1", 258, true);
    const prefix = new TextEncoder().encode("daysync/v1/file|m_1|");
    expect(aad.subarray(0, prefix.length)).toEqual(prefix);
    expect([...aad.subarray(prefix.length)]).toEqual([0, 0, 0, 0, 0, 0, 1, 2, 0x7c, 1]);
  });

  it("computes sealed lengths and back: n + 28 per record, an empty file one record of 28", () => {
    expect(SIZES.map(sealedLength)).toEqual([28, 29, R - 1 + 28, R + 28, R + 1 + 56, 3 * R + 84]);
    for (const size of SIZES) expect(plainLength(sealedLength(size))).toBe(size);
    for (const impossible of [0, 27, S + 1, S + 28]) expect(() => plainLength(impossible), String(impossible)).toThrow(RangeError);
  });

  it("maps plaintext ranges to whole sealed records and record-aligned sealed ranges back", () => {
    const n = 3 * R + 10;
    expect(recordsForPlainRange(n, 0, 1)).toEqual({
      firstRecord: 0,
      lastRecord: 0,
      plainStart: 0,
      plainEnd: R,
      sealedStart: 0,
      sealedEnd: S,
    });
    expect(recordsForPlainRange(n, R - 1, R + 1)).toMatchObject({ firstRecord: 0, lastRecord: 1, sealedStart: 0, sealedEnd: 2 * S });
    expect(recordsForPlainRange(n, 2 * R, n)).toEqual({
      firstRecord: 2,
      lastRecord: 3,
      plainStart: 2 * R,
      plainEnd: n,
      sealedStart: 2 * S,
      sealedEnd: sealedLength(n),
    });
    expect(recordsForPlainRange(0, 0, 0)).toMatchObject({ firstRecord: 0, lastRecord: 0, sealedEnd: 28 });
    expect(() => recordsForPlainRange(n, 0, n + 1)).toThrow(RangeError);

    expect(recordsForSealedRange(n, S, 3 * S)).toMatchObject({ firstRecord: 1, lastRecord: 2, plainStart: R, plainEnd: 3 * R });
    expect(recordsForSealedRange(n, 3 * S, sealedLength(n))).toMatchObject({ firstRecord: 3, lastRecord: 3, plainEnd: n });
    expect(recordsForSealedRange(n, 0, Number.POSITIVE_INFINITY)).toMatchObject({ lastRecord: 3, sealedEnd: sealedLength(n) });
    for (const [start, end] of [
      [1, S],
      [0, S + 1],
      [S, S],
    ] as const) {
      expect(() => recordsForSealedRange(n, start, end)).toThrow(RangeError);
    }
  });

  for (const size of SIZES) {
    it(`round-trips ${size} bytes through the sealing source and the stream, chunked oddly`, async () => {
      const { fileKey, plain, source, sealed } = await sealWhole(size);
      expect(sealed).toHaveLength(sealedLength(size));
      expect(source.size).toBe(sealedLength(size));
      for (const sizes of [[sealed.length || 1], [1, 7, 65_563, 3, 100_000], [S]]) {
        expect(b64(await openChunks(openRecordStream(fileKey, "m_1", sealed.length), cut(sealed, sizes)))).toBe(b64(plain));
      }
    });
  }

  it("seals tus slices record by record that concatenate into one openable file", async () => {
    const size = 3 * R + 5;
    const { fileKey, plain, source } = await sealWhole(size);
    const parts = [await source.slice(0, S), await source.slice(S, 3 * S), await source.slice(3 * S, source.size)];
    expect(b64(await openChunks(openRecordStream(fileKey, "m_1", source.size), parts))).toBe(b64(plain));
    await expect(source.slice(1, S)).rejects.toThrow(RangeError);
  });

  it("seals a range into a buffer it is given, reading the plaintext into the same buffer", async () => {
    const size = 3 * R + 5;
    const { fileKey, plain, source } = await sealWhole(size);
    const buffer = new Uint8Array(2 * S + 100).fill(9);
    const first = await source.slice(0, 2 * S, buffer);
    expect(first.buffer).toBe(buffer.buffer);
    expect(first.length).toBe(2 * S);
    const parts = [Uint8Array.from(first), await source.slice(2 * S, source.size, buffer)];
    expect(b64(await openChunks(openRecordStream(fileKey, "m_1", source.size), parts))).toBe(b64(plain));
    await expect(source.slice(0, 2 * S, new Uint8Array(2 * S - 1))).rejects.toThrow(RangeError);
  });

  it("refuses to seal a range of a file that became shorter while it was read", async () => {
    const fileKey = await importFileKey(makeFileKey());
    const shorter = fileOf(R);
    const source = createSealingSource({
      fileKey,
      messageId: "m_1",
      plainLength: 2 * R,
      read: readFrom(shorter),
    });
    await expect(source.slice(0, 2 * S)).rejects.toThrow("The file changed size while it was read");
  });

  it("opens a middle range of records for a player's Range request", async () => {
    const size = 3 * R + 5;
    const { fileKey, plain, sealed } = await sealWhole(size);
    const range = recordsForPlainRange(size, R + 10, 2 * R + 10);
    const opened = await openChunks(openRecordStream(fileKey, "m_1", sealed.length, range), [
      sealed.slice(range.sealedStart, range.sealedEnd),
    ]);
    expect(b64(opened)).toBe(b64(plain.slice(range.plainStart, range.plainEnd)));
  });

  describe("refuses tampering", () => {
    const refuses = async (stream: TransformStream<Uint8Array, Uint8Array>, chunks: Uint8Array[]) =>
      expect(openChunks(stream, chunks)).rejects.toThrow(UndecryptableError);

    it("a flipped byte, another message id, another key", async () => {
      const { fileKey, sealed } = await sealWhole(R + 1);
      const flipped = sealed.slice();
      flipped[S + 20] = (flipped[S + 20] ?? 0) ^ 1;
      await refuses(openRecordStream(fileKey, "m_1", sealed.length), [flipped]);
      await refuses(openRecordStream(fileKey, "m_2", sealed.length), [sealed]);
      await refuses(openRecordStream(await importFileKey(makeFileKey()), "m_1", sealed.length), [sealed]);
    });

    it("passes on, in order, only the records before one that fails, though later ones are opened meanwhile", async () => {
      const { fileKey, plain, sealed } = await sealWhole(12 * R);
      const flipped = sealed.slice();
      flipped[3 * S + 40] = (flipped[3 * S + 40] ?? 0) ^ 1;
      const out: Uint8Array[] = [];
      const reader = new Blob([flipped])
        .stream()
        .pipeThrough(openRecordStream(fileKey, "m_1", sealed.length))
        .getReader();
      let failure: unknown;
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(UndecryptableError);
      expect(b64(concatBytes(...out))).toBe(b64(plain.subarray(0, 3 * R)));
    });

    it("reordered records", async () => {
      const { fileKey, sealed } = await sealWhole(3 * R);
      const swapped = concatBytes(sealed.subarray(S, 2 * S), sealed.subarray(0, S), sealed.subarray(2 * S));
      await refuses(openRecordStream(fileKey, "m_1", sealed.length), [swapped]);
    });

    it("a dropped last record, which leaves a file ending on a record not marked final", async () => {
      const { fileKey, sealed } = await sealWhole(3 * R);
      const dropped = sealed.subarray(0, 2 * S);
      await refuses(openRecordStream(fileKey, "m_1", dropped.length), [dropped]);
    });

    it("a stream cut off before its end, and bytes past it", async () => {
      const { fileKey, sealed } = await sealWhole(R + 1);
      await refuses(openRecordStream(fileKey, "m_1", sealed.length), [sealed.subarray(0, S)]);
      await refuses(openRecordStream(fileKey, "m_1", sealed.length), [sealed.subarray(0, sealed.length - 1)]);
      await refuses(openRecordStream(fileKey, "m_1", sealed.length), [sealed, new Uint8Array(1)]);
    });

    it("a final flag in the middle", async () => {
      const fileKey = await importFileKey(makeFileKey());
      const first = await sealRecord(fileKey, "m_1", 0, true, fileOf(R));
      const second = await sealRecord(fileKey, "m_1", 1, true, fileOf(3));
      await expect(openRecord(fileKey, "m_1", 0, false, first)).rejects.toThrow(UndecryptableError);
      await refuses(openRecordStream(fileKey, "m_1", first.length + second.length), [first, second]);
    });
  });
});

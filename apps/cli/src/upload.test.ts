import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CryptoKey, importFileKey, makeFileKey, openRecordStream, RECORD_SIZE, SEALED_RECORD_SIZE } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeRecords } from "./sealing/node-records.ts";
import { declaredType, sealingFileReader } from "./upload.ts";

describe("what a sealed file declares itself to be", () => {
  it("an image, a video or a sound by its extension, whatever its case; anything else is a file, an SVG too", () => {
    expect(["sunset.JPG", "scan.heic", "clip.mp4", "talk.MOV", "voice.m4a", "song.flac"].map(declaredType)).toEqual([
      "image",
      "image",
      "video",
      "video",
      "audio",
      "audio",
    ]);
    expect(["drawing.svg", "notes", "report.pdf", ".png", "archive.tar.gz"].map(declaredType)).toEqual([
      "file",
      "file",
      "file",
      "file",
      "file",
    ]);
  });
});

describe("the sealed reader tus sends from", () => {
  const RECORDS = 3;
  const CHUNK = RECORDS * SEALED_RECORD_SIZE;
  const size = 7 * RECORD_SIZE + 999;
  const plain = Uint8Array.from({ length: size }, (_, i) => (i * 13 + (i >> 9)) & 0xff);
  const messageId = "m_reader";
  let dir: string;
  let handle: FileHandle;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "daysync-reader-"));
    writeFileSync(path.join(dir, "plain.bin"), plain);
    handle = await open(path.join(dir, "plain.bin"), "r");
  });
  afterAll(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Bytes compared by their hash: a failed comparison of two ranges would print a diff of 200,000 numbers. */
  const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  /** Lets the range sealed ahead finish, as it would while tus sends. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  async function opened(fileKey: CryptoKey, sealed: Uint8Array): Promise<Uint8Array> {
    const stream = new Blob([sealed]).stream().pipeThrough(openRecordStream(fileKey, messageId, sealed.length, undefined, nodeRecords));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  it("leaves each range as sent until tus asks for the next, and the whole file opens to the file", async () => {
    const fileKey = await importFileKey(makeFileKey());
    const file = await sealingFileReader(handle, { fileKey, messageId }, size).openFile(Buffer.alloc(0), CHUNK);
    const sent: Uint8Array[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for (let start = 0; start < file.size; start += CHUNK) {
      const { value } = await file.slice(start, start + CHUNK);
      const bytes = value as Buffer;
      const copy = Uint8Array.from(bytes);
      await settle();
      // The next range was sealed meanwhile, into another buffer.
      expect(digest(bytes)).toBe(digest(copy));
      sent.push(copy);
      buffers.add(bytes.buffer);
    }
    // Three ranges sealed in turn, and every buffer sealed into again once the server held what it carried.
    expect(sent.length).toBe(3);
    expect(buffers.size).toBe(2);
    expect(digest(await opened(fileKey, Buffer.concat(sent)))).toBe(digest(plain));
  });

  it("does not seal again into a range a retry may still be sending from", async () => {
    const fileKey = await importFileKey(makeFileKey());
    const file = await sealingFileReader(handle, { fileKey, messageId }, size).openFile(Buffer.alloc(0), CHUNK);
    const first = Uint8Array.from((await file.slice(0, CHUNK)).value as Buffer);
    const second = (await file.slice(CHUNK, 2 * CHUNK)).value as Buffer;
    const before = Uint8Array.from(second);
    // The PATCH failed: tus asks the server where it stands and sends from there again.
    const again = (await file.slice(CHUNK, 2 * CHUNK)).value as Buffer;
    await settle();
    expect(digest(second)).toBe(digest(before));
    expect(again.buffer).not.toBe(second.buffer);
    const rest = Uint8Array.from((await file.slice(2 * CHUNK, 3 * CHUNK)).value as Buffer);
    expect(digest(await opened(fileKey, Buffer.concat([first, again, rest])))).toBe(digest(plain));
  });
});

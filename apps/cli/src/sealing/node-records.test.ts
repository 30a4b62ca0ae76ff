import {
  type CryptoKey,
  createSealingSource,
  importFileKey,
  makeFileKey,
  openRecordStream,
  RECORD_SIZE,
  type RecordCipher,
  readFrom,
  toBase64Url,
  UndecryptableError,
  webCryptoRecords,
} from "@daysync/shared/crypto";
import { describe, expect, it } from "vitest";
import { nodeRecords } from "./node-records.ts";

const SIZE = 3 * RECORD_SIZE + 1234;
const plain = Uint8Array.from({ length: SIZE }, (_, i) => (i * 7 + (i >> 12)) & 0xff);

async function sealWith(cipher: RecordCipher, messageId: string) {
  const fileKey = await importFileKey(makeFileKey());
  const source = createSealingSource({
    fileKey,
    messageId,
    plainLength: SIZE,
    read: readFrom(plain),
    cipher,
  });
  return { fileKey, sealed: await source.slice(0, source.size) };
}

/** The sealed bytes through the opening stream in 10,000-byte chunks (records cut anywhere), collected. */
async function openWith(cipher: RecordCipher, fileKey: CryptoKey, messageId: string, sealed: Uint8Array): Promise<string> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < sealed.length; at += 10_000) controller.enqueue(sealed.slice(at, at + 10_000));
      controller.close();
    },
  });
  const parts: Uint8Array[] = [];
  const reader = input.pipeThrough(openRecordStream(fileKey, messageId, sealed.length, undefined, cipher)).getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return toBase64Url(Buffer.concat(parts));
}

describe("Node's AES-GCM for file records", () => {
  const pairs: [string, RecordCipher, RecordCipher][] = [
    ["sealed by Node, opened by WebCrypto", nodeRecords, webCryptoRecords],
    ["sealed by WebCrypto, opened by Node", webCryptoRecords, nodeRecords],
  ];

  it.each(pairs)("makes the same records as WebCrypto: %s", async (_, sealing, opening) => {
    const { fileKey, sealed } = await sealWith(sealing, "m_node");
    expect(await openWith(opening, fileKey, "m_node", sealed)).toBe(toBase64Url(plain));
  });

  it("uses the non-extractable key the shared library made, without exporting it", async () => {
    const { fileKey } = await sealWith(nodeRecords, "m_key");
    expect(fileKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("raw", fileKey)).rejects.toThrow();
  });

  it("refuses a changed record, another message's records and a wrong key", async () => {
    const { fileKey, sealed } = await sealWith(nodeRecords, "m_tamper");
    const changed = sealed.slice();
    changed[RECORD_SIZE + 100] = (changed[RECORD_SIZE + 100] ?? 0) ^ 1;
    await expect(openWith(nodeRecords, fileKey, "m_tamper", changed)).rejects.toBeInstanceOf(UndecryptableError);
    await expect(openWith(nodeRecords, fileKey, "m_other", sealed)).rejects.toBeInstanceOf(UndecryptableError);
    const otherKey = await importFileKey(makeFileKey());
    await expect(openWith(nodeRecords, otherKey, "m_tamper", sealed)).rejects.toBeInstanceOf(UndecryptableError);
  });

  it("seals the same range twice under fresh nonces", async () => {
    const fileKey = await importFileKey(makeFileKey());
    const source = createSealingSource({
      fileKey,
      messageId: "m_twice",
      plainLength: SIZE,
      read: readFrom(plain),
      cipher: nodeRecords,
    });
    const [first, second] = [await source.slice(0, source.size), await source.slice(0, source.size)];
    expect(toBase64Url(first.subarray(0, 12))).not.toBe(toBase64Url(second.subarray(0, 12)));
  });
});

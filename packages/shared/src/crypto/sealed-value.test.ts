import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "./encoding.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { openRecord, sealRecord } from "./file-records.ts";
import {
  makeFileKey,
  openFileKey,
  openValue,
  parseSealedValue,
  type SealedPlace,
  sealedValueAad,
  sealFileKey,
  sealValue,
} from "./sealed-value.ts";

const place: SealedPlace = {
  field: "content",
  userId: "u_1",
  spaceId: "personal",
  messageId: "m_1",
  type: "text",
  date: "2026-11-28",
  time: "9:05 AM",
  senderSessionId: "s_1",
  epoch: 2,
};

describe("sealed values", () => {
  it("builds the associated data exactly as decision 020 section 8 writes it", () => {
    expect(new TextDecoder().decode(sealedValueAad(place))).toBe("daysync/v1|content|u_1|personal|m_1|text|2026-11-28|9:05 AM|s_1|2");
  });

  it("seals text as v1.<epoch>.<base64url(nonce ‖ ciphertext ‖ tag)> and opens it", async () => {
    const { message } = await deriveEpochKeys(makeEpochKey(), "u_1");
    const text = "Héllo 👋, the door code is 4711";
    const sealed = await sealValue(message, place, text);
    const { epoch, bytes } = parseSealedValue(sealed);
    expect(sealed.startsWith("v1.2.")).toBe(true);
    expect(epoch).toBe(2);
    expect(bytes).toHaveLength(12 + new TextEncoder().encode(text).length + 16);
    expect(await openValue(message, place, sealed)).toBe(text);
    expect(await sealValue(message, place, text)).not.toBe(sealed);
    expect(await openValue(message, place, await sealValue(message, place, ""))).toBe("");
  });

  it("refuses a value moved to another place, a flipped byte, another key and a changed envelope", async () => {
    const epochKey = makeEpochKey();
    const { message, fileKey } = await deriveEpochKeys(epochKey, "u_1");
    const sealed = await sealValue(message, place, "secret");
    const moved: Partial<SealedPlace>[] = [
      { field: "preview" },
      { userId: "u_2" },
      { spaceId: "d_1" },
      { messageId: "m_2" },
      { type: "file" },
      { date: "2026-11-29" },
      { time: "9:06 AM" },
      { senderSessionId: "s_2" },
    ];
    for (const change of moved) {
      await expect(openValue(message, { ...place, ...change }, sealed), JSON.stringify(change)).rejects.toThrow(UndecryptableError);
    }
    const { bytes } = parseSealedValue(sealed);
    for (const at of [0, 12, bytes.length - 1]) {
      const flipped = bytes.slice();
      flipped[at] = (flipped[at] ?? 0) ^ 0x80;
      await expect(openValue(message, place, `v1.2.${toBase64Url(flipped)}`)).rejects.toThrow(UndecryptableError);
    }
    const otherAccount = await deriveEpochKeys(epochKey, "u_2");
    const otherEpoch = await deriveEpochKeys(makeEpochKey(), "u_1");
    for (const key of [fileKey, otherAccount.message, otherEpoch.message]) {
      await expect(openValue(key, place, sealed)).rejects.toThrow(UndecryptableError);
    }
    const payload = sealed.slice("v1.2.".length);
    for (const envelope of [`v1.3.${payload}`, `v2.2.${payload}`, `v1.02.${payload}`, `v1.2.${payload}=`, "v1.2.short", "hello"]) {
      await expect(openValue(message, place, envelope), envelope).rejects.toThrow(UndecryptableError);
    }
    // The epoch inside the associated data, not only the envelope's, must match.
    await expect(openValue(message, { ...place, epoch: 3 }, `v1.3.${payload}`)).rejects.toThrow(UndecryptableError);
  });

  it("seals a file's key under the file-key key, bound to the message, and opens it into a working record key", async () => {
    const { fileKey: fileKeyKey, message } = await deriveEpochKeys(makeEpochKey(), "u_1");
    const { field: _field, ...filePlace } = { ...place, type: "image" };
    const raw = makeFileKey();
    const sealed = await sealFileKey(fileKeyKey, filePlace, raw);
    const recordKey = await openFileKey(fileKeyKey, filePlace, sealed);
    const record = await sealRecord(recordKey, "m_1", 0, true, new Uint8Array([1, 2, 3]));
    expect(await openRecord(recordKey, "m_1", 0, true, record)).toEqual(new Uint8Array([1, 2, 3]));

    await expect(openFileKey(fileKeyKey, { ...filePlace, messageId: "m_2" }, sealed)).rejects.toThrow(UndecryptableError);
    await expect(openFileKey(message, filePlace, sealed)).rejects.toThrow(UndecryptableError);
    // A file key is not text: it does not open as a content value either.
    await expect(openValue(fileKeyKey, { ...filePlace, field: "content" }, sealed)).rejects.toThrow(UndecryptableError);
    expect(fromBase64Url(sealed.split(".")[2] ?? "")).toHaveLength(12 + 32 + 16);
  });
});

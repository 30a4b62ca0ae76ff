import { describe, expect, it } from "vitest";
import { SEALED_TEXT } from "../sealed-messages.ts";
import { randomBytes } from "./encoding.ts";
import { createSealingSource, importFileKey, openRecord, RECORD_SIZE, readFrom, SEALED_RECORD_SIZE, sealRecord } from "./file-records.ts";
import { OTHER_ROOM_ID, ROOM_ID } from "./room-fixtures.ts";
import { deriveRoomKeys, makeRoomKey } from "./room-key.ts";
import {
  openRoomFileKey,
  openRoomMessage,
  openRoomValue,
  type RoomPlace,
  sealRoomFile,
  sealRoomFileKey,
  sealRoomText,
  sealRoomValue,
} from "./room-sealing.ts";
import { makeFileKey } from "./sealed-value.ts";

const roomKey = makeRoomKey();
const keysOf = (generation: number, roomId = ROOM_ID) => deriveRoomKeys(roomKey, roomId, generation);
const typed = { id: "6a2b3c4d-0000-4000-8000-000000000001", date: "2026-12-05", time: "9:05 AM", content: "  The gate code is 4412  " };
const undecryptable = SEALED_TEXT.undecryptable;

describe("sealing under a room key", () => {
  it("seals a text and its preview (the push text) that open on another member's device", async () => {
    const keys = await keysOf(1);
    const sealed = await sealRoomText({ keys, memberKeyId: "kA" }, typed);
    expect(sealed.generation).toBe(1);
    expect(sealed.content).toMatch(/^v1\.1\./);
    const message = { ...sealed, type: "text", senderKeyId: "kA", filename: "" };
    expect(await openRoomMessage(new Map([[1, keys]]), message)).toEqual({
      state: "opened",
      text: "The gate code is 4412",
      preview: "The gate code is 4412",
    });
    expect(await openRoomMessage(new Map(), message)).toEqual({ state: "locked", generation: 1 });
  });

  it.each([
    ["another sender", { senderKeyId: "kB" }],
    ["another date", { date: "2026-12-06" }],
    ["another time", { time: "9:06 AM" }],
    ["another type", { type: "file" }],
    ["another message id", { id: "6a2b3c4d-0000-4000-8000-000000000002" }],
  ])("does not open a message given %s", async (_, change) => {
    const keys = await keysOf(1);
    const sealed = await sealRoomText({ keys, memberKeyId: "kA" }, typed);
    const message = { ...sealed, type: "text", senderKeyId: "kA", filename: sealed.content, ...change };
    await expect(openRoomMessage(new Map([[1, keys]]), message)).rejects.toThrow(undecryptable);
  });

  it("refuses a preview that is not the text's, even sealed under the room key", async () => {
    const keys = await keysOf(1);
    const sealed = await sealRoomText({ keys, memberKeyId: "kA" }, typed);
    const other = await sealRoomText({ keys, memberKeyId: "kA" }, { ...typed, content: "Something else" });
    const message = { ...sealed, preview: other.preview, type: "text", senderKeyId: "kA", filename: "" };
    await expect(openRoomMessage(new Map([[1, keys]]), message)).rejects.toThrow(undecryptable);
  });

  it("seals the title and a display name, each bound to its field", async () => {
    const keys = await keysOf(2);
    const title: RoomPlace = { field: "title", messageId: "rename-1", type: "", date: "", time: "", senderKeyId: "kA" };
    const sealed = await sealRoomValue(keys, title, "Trip to Lyon");
    expect(await openRoomValue(keys, title, sealed)).toBe("Trip to Lyon");
    await expect(openRoomValue(keys, { ...title, field: "name" }, sealed)).rejects.toThrow(undecryptable);
  });

  it("seals a file message: its name opens as the message's text, its records under the key its sealed key opens to", async () => {
    const keys = await keysOf(1);
    const file = { id: typed.id, date: typed.date, time: typed.time, type: "image", name: "lyon.jpg" };
    const { fields, fileKey } = await sealRoomFile({ keys, memberKeyId: "kA" }, file);
    const message = { ...file, ...fields, senderKeyId: "kA", content: "" };
    expect(await openRoomMessage(new Map([[1, keys]]), message)).toEqual({ state: "opened", text: "lyon.jpg", preview: "lyon.jpg" });
    const bytes = new Uint8Array(70_000).map((_, i) => i % 251);
    const source = createSealingSource({ fileKey, messageId: file.id, plainLength: bytes.length, read: readFrom(bytes) });
    const sealed = await source.slice(0, source.size);
    const opened = await openRoomFileKey(keys, { ...file, messageId: file.id, senderKeyId: "kA" }, fields.file_key);
    const first = await openRecord(opened, file.id, 0, false, sealed.subarray(0, SEALED_RECORD_SIZE));
    expect(first).toEqual(bytes.subarray(0, RECORD_SIZE));
  });

  it("seals a file's key under the file-key key; its records are file-records.ts's", async () => {
    const keys = await keysOf(1);
    const place = { messageId: typed.id, type: "file", date: typed.date, time: typed.time, senderKeyId: "kA" };
    const raw = makeFileKey();
    const sealedKey = await sealRoomFileKey(keys, place, raw);
    const bytes = randomBytes(100);
    const record = await sealRecord(await importFileKey(raw), typed.id, 0, true, bytes);
    const opened = await openRoomFileKey(keys, place, sealedKey);
    expect(await openRecord(opened, typed.id, 0, true, record)).toEqual(bytes);
    // Under the message key (another key) or at another place it does not open.
    await expect(openRoomValue(keys, { ...place, field: "file-key" }, sealedKey)).rejects.toThrow(undecryptable);
    await expect(openRoomFileKey(await keysOf(1, OTHER_ROOM_ID), place, sealedKey)).rejects.toThrow(undecryptable);
  });
});

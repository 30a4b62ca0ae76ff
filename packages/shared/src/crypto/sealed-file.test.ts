import { describe, expect, it } from "vitest";
import type { Message } from "../entities.ts";
import { sealedUploadMetadataSchema } from "../sealed-uploads.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { createSealingSource, openRecordStream, readFrom } from "./file-records.ts";
import { openFileMessage, resumeFileUpload, sealFileUpload } from "./sealed-file.ts";
import { openMessage } from "./sealed-message.ts";
import { openFileKey } from "./sealed-value.ts";

const userId = "u_1";
const sessionId = "s_1";
const file = { id: crypto.randomUUID(), date: "11/28/2026", time: "9:05 AM", name: "passport scan.pdf", type: "file" as const };

describe("a sealed file's upload", () => {
  it("carries metadata the server's contract takes, no name in clear, and a key that opens its records", async () => {
    const keys = await deriveEpochKeys(makeEpochKey(), userId);
    const { metadata, fileKey } = await sealFileUpload({ userId, sessionId, epoch: 2, keys }, file);
    expect(sealedUploadMetadataSchema.parse(metadata)).toMatchObject({ type: "file", epoch: 2, message_id: file.id });
    expect(JSON.stringify(metadata)).not.toContain("passport");

    // As the server serves the finished file's message, the name opens on the device, and so does the file's key.
    const served: Message = {
      id: file.id,
      type: "file",
      content: "",
      filename: metadata.filename ?? "",
      preview: metadata.preview ?? "",
      epoch: 2,
      date: file.date,
      time: file.time,
      file_url: "/api/files/x",
      url: "",
      user_id: userId,
      date_message_id: "d_1",
      timestamps: 1,
      device: { id: sessionId, name: "Phone" },
    };
    expect(await openMessage(userId, new Map([[2, keys]]), served)).toMatchObject({ state: "opened", text: "passport scan.pdf" });
    const place = {
      userId,
      spaceId: userId,
      messageId: file.id,
      type: "file",
      date: file.date,
      time: file.time,
      senderSessionId: sessionId,
      epoch: 2,
    };
    const opened = await openFileKey(keys.fileKey, place, metadata.file_key ?? "");

    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) & 0xff);
    const source = createSealingSource({
      fileKey,
      messageId: file.id,
      plainLength: bytes.length,
      read: readFrom(bytes),
    });
    const sealed = await source.slice(0, source.size);
    const back = new Uint8Array(
      await new Response(new Blob([sealed]).stream().pipeThrough(openRecordStream(opened, file.id, sealed.length))).arrayBuffer(),
    );
    expect(back).toEqual(bytes);
  });

  it("goes on after a reload with the key its kept metadata opens to, and starts afresh when it cannot", async () => {
    const keys = await deriveEpochKeys(makeEpochKey(), userId);
    const sealer = { userId, sessionId, epoch: 2, keys };
    const begun = await sealFileUpload(sealer, file);
    const resumed = await resumeFileUpload(sealer, begun.metadata);
    expect(resumed?.metadata).toEqual(begun.metadata);

    // Records sealed before the reload open with the key the resumed upload seals the rest under.
    const bytes = new Uint8Array(100).fill(7);
    const read = readFrom(bytes);
    const sealed = await createSealingSource({ fileKey: begun.fileKey, messageId: file.id, plainLength: 100, read }).slice(0, 128);
    const stream = new Blob([sealed]).stream().pipeThrough(openRecordStream(resumed?.fileKey ?? begun.fileKey, file.id, sealed.length));
    expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(bytes);

    expect(await resumeFileUpload({ ...sealer, epoch: 3 }, begun.metadata)).toBeUndefined();
    expect(await resumeFileUpload({ ...sealer, sessionId: "s_2" }, begun.metadata)).toBeUndefined();
    expect(await resumeFileUpload(sealer, { filename: "clear.txt", filetype: "text/plain" })).toBeUndefined();
  });

  it("opens a file message's key for the devices that hold its epoch, and says why not for the others", async () => {
    const keys = await deriveEpochKeys(makeEpochKey(), userId);
    const { metadata, fileKey } = await sealFileUpload({ userId, sessionId, epoch: 2, keys }, file);
    const message = { ...file, epoch: 2, file_key: metadata.file_key, device: { id: sessionId, name: "Phone" } };
    const epochs = new Map([[2, keys]]);
    const opened = await openFileMessage(userId, epochs, message);
    const sealed = await createSealingSource({
      fileKey,
      messageId: file.id,
      plainLength: 3,
      read: readFrom(new Uint8Array([1, 2, 3])),
    }).slice(0, 31);
    const key = opened.state === "opened" ? opened.fileKey : fileKey;
    expect(opened.state).toBe("opened");
    const stream = new Blob([sealed]).stream().pipeThrough(openRecordStream(key, file.id, sealed.length));
    expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));

    expect(await openFileMessage(userId, epochs, { ...message, epoch: undefined })).toEqual({ state: "clear" });
    expect(await openFileMessage(userId, new Map(), message)).toEqual({ state: "locked", epoch: 2 });
    expect(await openFileMessage(userId, epochs, { ...message, device: { id: "s_2", name: "Laptop" } })).toEqual({
      state: "undecryptable",
    });
    expect(await openFileMessage(userId, epochs, { ...message, file_key: undefined })).toEqual({ state: "undecryptable" });
  });
});

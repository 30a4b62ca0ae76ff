/**
 * Files sealed on the device (docs/protocol/encryption.md, "File records"), as the server takes them: an upload whose metadata names an
 * epoch carries only sealed values and opaque records; it goes in under the account's current epoch only, is cut back
 * to whole records before a device resumes it, and is served as `<message id>.daysync` bytes the device opens.
 */

import { statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { API, type DateMessages, formatStoredDate, formatStoredTime, type Message, type SealedFileType } from "@daysync/shared";
import {
  createSealingSource,
  type EpochKeys,
  openFileKey,
  openMessage,
  openRecordStream,
  readFrom,
  SEALED_RECORD_SIZE,
  type SealedPlace,
  sealedLength,
  sealFileUpload,
} from "@daysync/shared/crypto";
import contentDisposition from "content-disposition";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { keyDevice } from "../../testing/key-devices.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { b64, create, metadata, offsetOf, patch, TUS } from "../../testing/tus-client.ts";
import { payloadOf } from "../push/push.service.ts";

const LIMIT = 1024 * 1024;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ FREE_MAX_FILE_BYTES: String(LIMIT) });
});
afterAll(() => server.close());

/** A signed-in device of a new account that holds the account's first epoch, as the web app and the CLI do. */
async function keyedPerson(name: string) {
  const { device, user } = await person(server, name);
  const status = await keyDevice(device, user.id).keys.sync();
  if (status.state !== "ready") throw new Error(`keys are ${status.state}`);
  const keys = status.keys.epochs.get(status.epoch);
  if (!keys) throw new Error("no epoch keys");
  return { device, userId: user.id, sessionId: status.sessionId, epoch: status.epoch, keys, epochs: status.keys.epochs };
}
type Keyed = Awaited<ReturnType<typeof keyedPerson>>;

const header = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(",");

/** A file sealed as a device seals it: its records under a fresh file key, its name, preview and key under the epoch. */
async function sealFile(who: Keyed, data: Uint8Array, name: string, type: SealedFileType = "image") {
  const messageId = crypto.randomUUID();
  const at = new Date(server.clock.now());
  const [date, time] = [formatStoredDate(at), formatStoredTime(at)];
  const place = { userId: who.userId, spaceId: who.userId, messageId, type, date, time, senderSessionId: who.sessionId, epoch: who.epoch };
  const { metadata: fields, fileKey } = await sealFileUpload(who, { id: messageId, date, time, name, type });
  const source = createSealingSource({
    fileKey,
    messageId,
    plainLength: data.length,
    read: readFrom(data),
  });
  return { messageId, fields, header: header(fields), source, place };
}

/** Opens a sealed download with the file key its message carries. */
async function openDownload(keys: EpochKeys, place: Omit<SealedPlace, "field">, fileKey: string, sealed: Uint8Array) {
  const key = await openFileKey(keys.fileKey, place, fileKey);
  const opened = new Blob([sealed]).stream().pipeThrough(openRecordStream(key, place.messageId, sealed.length));
  return new Uint8Array(await new Response(opened).arrayBuffer());
}

const errorOf = async (res: Response) => (await res.json()) as { error: { code: string; message: string; field?: string } };
const fileOnDisk = (id: string) => path.join(server.dataDir, "files", id);
const idOf = (location: string) => location.split("/").pop() ?? "";

const plain = (length: number) => {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, Math.min(i + 65_536, length)));
  return bytes;
};

describe("a sealed upload", () => {
  it("finishes into a sealed file message with no name in clear, served as <message id>.daysync that opens to the file", async () => {
    const who = await keyedPerson("Sol");
    const data = plain(200_000);
    const name = "holiday secret.png";
    const file = await sealFile(who, data, name);
    const sealed = await file.source.slice(0, file.source.size);
    expect(sealed.length).toBe(sealedLength(data.length));

    const live = await who.device.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    const { res, location } = await create(who.device, sealed.length, file.header);
    expect(res.status).toBe(201);
    const twoRecords = 2 * SEALED_RECORD_SIZE;
    expect((await patch(who.device, location, 0, sealed.subarray(0, twoRecords))).status).toBe(204);
    expect((await offsetOf(who.device, location)).offset).toBe(twoRecords);
    expect((await patch(who.device, location, twoRecords, sealed.subarray(twoRecords))).status).toBe(204);

    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "message.created"));
    const created = live.events().find((e) => e.event.kind === "message.created")?.event;
    live.close();
    const message = created?.kind === "message.created" ? created.message : undefined;
    expect(message).toMatchObject({
      id: file.messageId,
      type: "image",
      content: "",
      epoch: who.epoch,
      filename: file.fields.filename,
      preview: file.fields.preview,
      file_key: file.fields.file_key,
      file_size: sealed.length,
      file_url: API.file(idOf(location)),
    });
    if (!message) throw new Error("no message");
    expect(await openMessage(who.userId, who.epochs, message)).toEqual({ state: "opened", text: name, preview: name });
    const [day] = (await who.device.get<{ days: DateMessages[] }>(API.days)).body.days;
    expect(day).toMatchObject({
      last_message: file.fields.preview,
      last_message_type: "image",
      last_message_epoch: who.epoch,
      last_message_id: file.messageId,
      last_message_device_id: who.sessionId,
    });

    // Nowhere in what the server keeps or pushes is the name in clear.
    const row = await server.db.selectFrom("messages").selectAll().where("id", "=", file.messageId).executeTakeFirstOrThrow();
    expect(Number(row.epoch)).toBe(who.epoch);
    const upload = await server.db.selectFrom("uploads").selectAll().where("id", "=", idOf(location)).executeTakeFirstOrThrow();
    expect({ ...upload, epoch: Number(upload.epoch), size: Number(upload.size) }).toMatchObject({
      filename: "",
      mime: "application/octet-stream",
      epoch: who.epoch,
      size: sealed.length,
    });
    const push = payloadOf(message);
    expect(push).toMatchObject({ body: "", message_type: "image", sealed: { epoch: who.epoch, preview: file.fields.preview } });
    for (const kept of [row, upload, day, push]) expect(JSON.stringify(kept)).not.toMatch(/holiday|secret/);
    // Storage counts the sealed bytes.
    expect((await who.device.get<{ used: number }>(API.storage)).body.used).toBe(sealed.length);

    const download = await who.device.raw("GET", message.file_url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(contentDisposition.parse(download.headers.get("content-disposition") ?? "")).toEqual({
      type: "attachment",
      parameters: { filename: `${file.messageId}.daysync` },
    });
    const served = new Uint8Array(await download.arrayBuffer());
    expect(Buffer.from(served).equals(Buffer.from(sealed))).toBe(true);
    expect(Buffer.from(await openDownload(who.keys, file.place, message.file_key ?? "", served)).equals(Buffer.from(data))).toBe(true);

    // A player's Range: the second record, opened alone.
    const range = `bytes=${SEALED_RECORD_SIZE}-${2 * SEALED_RECORD_SIZE - 1}`;
    const part = await who.device.raw("GET", message.file_url, { headers: { range } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes ${SEALED_RECORD_SIZE}-${2 * SEALED_RECORD_SIZE - 1}/${sealed.length}`);
    const fileKey = await openFileKey(who.keys.fileKey, file.place, message.file_key ?? "");
    const record = new Response(
      (part.body as ReadableStream<Uint8Array>).pipeThrough(
        openRecordStream(fileKey, file.messageId, sealed.length, { firstRecord: 1, lastRecord: 1 }),
      ),
    );
    expect(Buffer.from(await record.arrayBuffer()).equals(Buffer.from(data.subarray(65_536, 131_072)))).toBe(true);

    // The server's search cannot read it, so it never answers it.
    const found = await who.device.get<{ results: unknown[] }>(`${API.search}?q=holiday`);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.body)).not.toContain(file.messageId);
  });

  it("cut off mid-record resumes from the last whole record, and the finished file opens to the original", async () => {
    const who = await keyedPerson("Cal");
    const data = plain(200_000);
    const file = await sealFile(who, data, "cut.bin", "file");
    const sealed = await file.source.slice(0, file.source.size);
    const { location } = await create(who.device, sealed.length, file.header);
    const id = idOf(location);

    // A PATCH of the whole file whose connection drops after a record and 1000 bytes of the next have arrived.
    const cutAt = SEALED_RECORD_SIZE + 1000;
    const request = http.request(who.device.baseUrl + location, {
      method: "PATCH",
      headers: {
        ...TUS,
        cookie: who.device.cookie,
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
        "content-length": String(sealed.length),
      },
    });
    request.on("error", () => undefined);
    request.write(sealed.subarray(0, cutAt));
    await until(() => sizeOnDisk(id) >= cutAt);
    request.destroy();

    expect(await offsetOf(who.device, location)).toEqual({ status: 200, offset: SEALED_RECORD_SIZE });
    expect(sizeOnDisk(id)).toBe(SEALED_RECORD_SIZE);
    // The device seals the rest again (fresh nonces) from the boundary it was told.
    const rest = await file.source.slice(SEALED_RECORD_SIZE, file.source.size);
    expect((await patch(who.device, location, SEALED_RECORD_SIZE, rest)).status).toBe(204);

    const message = (await who.device.get<{ message: Message }>(API.message(file.messageId))).body.message;
    const served = new Uint8Array(await (await who.device.raw("GET", message.file_url)).arrayBuffer());
    expect(Buffer.from(await openDownload(who.keys, file.place, message.file_key ?? "", served)).equals(Buffer.from(data))).toBe(true);
  });

  it("that ended mid-record is cut back before a PATCH too, which then names the boundary", async () => {
    const who = await keyedPerson("Ned");
    const file = await sealFile(who, plain(150_000), "ragged.bin", "file");
    const sealed = await file.source.slice(0, file.source.size);
    const { location } = await create(who.device, sealed.length, file.header);
    const ragged = SEALED_RECORD_SIZE + 1000;
    expect((await patch(who.device, location, 0, sealed.subarray(0, ragged))).status).toBe(204);
    const stale = await patch(who.device, location, ragged, sealed.subarray(ragged));
    expect(stale.status).toBe(409);
    expect(sizeOnDisk(idOf(location))).toBe(SEALED_RECORD_SIZE);
    expect((await offsetOf(who.device, location)).offset).toBe(SEALED_RECORD_SIZE);
    expect((await patch(who.device, location, SEALED_RECORD_SIZE, sealed.subarray(SEALED_RECORD_SIZE))).status).toBe(204);
  });

  it("is refused, before a byte is stored, with a JSON error naming what is wrong", async () => {
    const who = await keyedPerson("Val");
    const file = await sealFile(who, plain(1000), "a.png");
    const length = sealedLength(1000);
    const refused = async (fields: Record<string, string>, size = length) => {
      const { res, location } = await create(who.device, size, header(fields));
      expect(location).toBe("");
      return { status: res.status, ...(await errorOf(res)).error };
    };
    const other = `v1.${who.epoch + 1}.${"A".repeat(60)}`;

    expect(await refused({ ...file.fields, filename: "a.png" })).toMatchObject({ status: 400, field: "filename" });
    expect(await refused({ ...file.fields, file_key: "v1.1.short" })).toMatchObject({ status: 400, field: "file_key" });
    expect(await refused({ ...file.fields, preview: `v1.${who.epoch}.${"A".repeat(2000)}` })).toMatchObject({
      status: 400,
      field: "preview",
    });
    expect(await refused({ ...file.fields, type: "text" })).toMatchObject({ status: 400, field: "type" });
    expect(await refused({ ...file.fields, epoch: "one" })).toMatchObject({ status: 400, field: "epoch" });
    expect(await refused({ ...file.fields, filetype: "image/png" })).toMatchObject({ status: 400, field: "filetype" });
    expect(await refused({ ...file.fields, filename: other })).toMatchObject({
      status: 400,
      field: "epoch",
      message: "filename, preview and file_key must be sealed under the upload's epoch.",
    });
    const toDiscussion = await refused({ ...file.fields, discussion_id: crypto.randomUUID() });
    expect(toDiscussion).toMatchObject({ status: 400, code: "validation", field: "discussion_id" });
    expect(toDiscussion.message).toMatch(/discussions stay in clear/);

    // Sealed under an epoch the account is not at, or while a rotation is due: the device syncs its keys first.
    const later = { ...file.fields, epoch: String(who.epoch + 1), filename: other, preview: other, file_key: other };
    expect(await refused(later)).toMatchObject({ status: 409, code: "key_epoch_changed" });
    await setRotationDue(who.userId, true);
    expect(await refused(file.fields)).toMatchObject({ status: 409, code: "key_rotation_due" });
    await setRotationDue(who.userId, false);

    // Upload-Length is a sealed file's length: whole records and a last one of at least its 28 bytes of overhead.
    for (const size of [27, SEALED_RECORD_SIZE + 27]) {
      expect(await refused(file.fields, size)).toMatchObject({
        status: 400,
        field: "Upload-Length",
        message: `Upload-Length ${size} is no sealed file's length.`,
      });
    }
    // The plan's limit, applied to the sealed length of a file at the limit.
    expect(await refused(file.fields, sealedLength(LIMIT + 1))).toMatchObject({
      status: 413,
      code: "payload_too_large",
      message: "This file is too large: your plan allows files up to 1 MiB.",
    });
    const atLimit = await create(who.device, sealedLength(LIMIT), file.header);
    expect(atLimit.res.status).toBe(201);
    expect((await who.device.raw("DELETE", atLimit.location, { headers: TUS })).status).toBe(204);
    // A file in clear keeps the plain limit.
    expect((await create(who.device, sealedLength(LIMIT), metadata("a.bin", server.clock.now()).header)).res.status).toBe(413);

    expect(await server.db.selectFrom("uploads").select("id").where("user_id", "=", who.userId).execute()).toEqual([]);
    expect((await who.device.get<{ used: number }>(API.storage)).body.used).toBe(0);
  });

  it("leaves no message and no file when the account's epoch moves while it is sent", async () => {
    const who = await keyedPerson("Max");
    for (const move of [() => setEpoch(who.userId, who.epoch + 1), () => setRotationDue(who.userId, true)]) {
      const file = await sealFile(who, plain(100_000), "late.bin", "file");
      const sealed = await file.source.slice(0, file.source.size);
      const { location } = await create(who.device, sealed.length, file.header);
      expect((await patch(who.device, location, 0, sealed.subarray(0, SEALED_RECORD_SIZE))).status).toBe(204);
      await move();
      const last = await patch(who.device, location, SEALED_RECORD_SIZE, sealed.subarray(SEALED_RECORD_SIZE));
      expect(last.status).toBe(409);
      expect((await errorOf(last)).error.code).toMatch(/^key_(epoch_changed|rotation_due)$/);
      expect(await server.db.selectFrom("messages").select("id").where("id", "=", file.messageId).execute()).toEqual([]);
      expect(await server.db.selectFrom("uploads").select("id").where("id", "=", idOf(location)).execute()).toEqual([]);
      expect(sizeOnDisk(idOf(location))).toBe(-1);
      expect((await offsetOf(who.device, location)).status).toBe(404);
      await setEpoch(who.userId, who.epoch);
      await setRotationDue(who.userId, false);
    }
  });

  it("is refused at its next PATCH, not only at its last byte, once the epoch moved, and removed", async () => {
    const who = await keyedPerson("Mid");
    const file = await sealFile(who, plain(300_000), "moving.bin", "file");
    const sealed = await file.source.slice(0, file.source.size);
    const { location } = await create(who.device, sealed.length, file.header);
    expect((await patch(who.device, location, 0, sealed.subarray(0, SEALED_RECORD_SIZE))).status).toBe(204);
    await setEpoch(who.userId, who.epoch + 1);
    const next = await patch(who.device, location, SEALED_RECORD_SIZE, sealed.subarray(SEALED_RECORD_SIZE, 2 * SEALED_RECORD_SIZE));
    expect(next.status).toBe(409);
    expect((await errorOf(next)).error.code).toBe("key_epoch_changed");
    expect(sizeOnDisk(idOf(location))).toBe(-1);
    expect((await offsetOf(who.device, location)).status).toBe(404);
    await setEpoch(who.userId, who.epoch);
  });

  it("is its uploader's only: another user can neither see, resume, cancel nor download it", async () => {
    const who = await keyedPerson("Ora");
    const intruder = (await person(server, "Ivo")).device;
    const file = await sealFile(who, plain(100_000), "mine.bin", "file");
    const sealed = await file.source.slice(0, file.source.size);
    const { location } = await create(who.device, sealed.length, file.header);
    await patch(who.device, location, 0, sealed.subarray(0, SEALED_RECORD_SIZE + 10));
    expect((await offsetOf(intruder, location)).status).toBe(404);
    expect((await patch(intruder, location, SEALED_RECORD_SIZE, sealed.subarray(SEALED_RECORD_SIZE))).status).toBe(404);
    expect((await intruder.raw("DELETE", location, { headers: TUS })).status).toBe(404);
    // The intruder's HEAD cut nothing back: only its uploader's own requests reach the file.
    expect(sizeOnDisk(idOf(location))).toBe(SEALED_RECORD_SIZE + 10);
    expect((await offsetOf(who.device, location)).offset).toBe(SEALED_RECORD_SIZE);
    await patch(who.device, location, SEALED_RECORD_SIZE, sealed.subarray(SEALED_RECORD_SIZE));
    expect((await who.device.raw("GET", API.file(idOf(location)))).status).toBe(200);
    expect((await intruder.raw("GET", API.file(idOf(location)))).status).toBe(404);
  });
});

/** Bytes of an upload's file on disk; -1 when there is none. */
function sizeOnDisk(id: string): number {
  try {
    return statSync(fileOnDisk(id)).size;
  } catch {
    return -1;
  }
}

async function until(done: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The account's key state as its devices' key routes would leave it (those are tested in `modules/keys`). */
async function setEpoch(userId: string, epoch: number) {
  await server.db.updateTable("users").set({ key_epoch: epoch }).where("id", "=", userId).execute();
}

async function setRotationDue(userId: string, due: boolean) {
  await server.db
    .updateTable("users")
    .set({ key_rotation_due_at: due ? server.clock.now() : null })
    .where("id", "=", userId)
    .execute();
}

/**
 * A file in an encrypted discussion (issue 45): its records are sealed under its own key, its name, preview and key
 * under the room's generation; the server takes it by tus like a day's sealed file, serves the opaque bytes to the
 * members, and keeps no name in clear. A metadata that is not a sealed room file is a 400 JSON before any byte.
 */
import { randomBytes } from "node:crypto";
import { API, DISCUSSIONS_API, type DiscussionMessage, formatStoredDate, formatStoredTime, ROOMS_API } from "@daysync/shared";
import {
  createSealingSource,
  makeRotation,
  openRecordStream,
  openRoomFileKey,
  openRoomValue,
  readFrom,
  roomSender,
  sealRoomFile,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { everyRow } from "../../testing/every-row.ts";
import { createRoomThroughApi, currentKeys, entryBody, linkJoinThroughApi, wrapBody } from "../../testing/room-client.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { b64, create, patch } from "../../testing/tus-client.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const header = (fields: Record<string, string | number>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k} ${b64(String(v))}`)
    .join(",");

describe("a file in an encrypted discussion", () => {
  it("goes in sealed, reaches the members as a sealed file message, and opens to its bytes and name", async () => {
    const ana = await person(server, "Ana");
    const bo = await person(server, "Bo");
    const { res, holding } = await createRoomThroughApi(ana.device, "Ana", "Files");
    const roomId = res.body.id;
    const joined = await linkJoinThroughApi(bo.device, res.body.public_id, holding, "Bo");
    const name = "Qzx secret plan.png";
    const data = new Uint8Array(randomBytes(70_000));
    const at = new Date(server.clock.now());
    const file = { id: crypto.randomUUID(), date: formatStoredDate(at), time: formatStoredTime(at), type: "image", name };
    const sender = roomSender(holding, 1);
    const { fields, fileKey } = await sealRoomFile(sender, file);
    const source = createSealingSource({ fileKey, messageId: file.id, plainLength: data.length, read: readFrom(data) });
    const sealed = await source.slice(0, source.size);
    const meta = {
      discussion_id: roomId,
      sender_key_id: sender.memberKeyId,
      type: "image",
      message_id: file.id,
      date: file.date,
      time: file.time,
    };

    // Refused before any byte: a generation its fields are not sealed under, a name in clear, and a non-member.
    for (const bad of [
      { ...meta, ...fields, generation: 2 },
      { ...meta, ...fields, filename: name },
    ]) {
      const refused = await create(ana.device, sealed.length, header(bad));
      expect(refused.res.status).toBe(400);
      expect(((await refused.res.json()) as { error: { code: string } }).error.code).toBe("validation");
    }
    const eve = await person(server, "Eve");
    expect((await create(eve.device, sealed.length, header({ ...meta, ...fields }))).res.status).toBe(404);

    const { res: started, location } = await create(ana.device, sealed.length, header({ ...meta, ...fields }));
    expect(started.status).toBe(201);
    const patched = await patch(ana.device, location, 0, sealed);
    expect([patched.status, await patched.text()]).toEqual([204, ""]);

    const listed = await bo.device.get<{ messages: DiscussionMessage[] }>(DISCUSSIONS_API.messages(roomId));
    const message = listed.body.messages.find((m) => m.id === file.id);
    expect(message).toMatchObject({
      type: "image",
      content: "",
      generation: 1,
      sender_key_id: sender.memberKeyId,
      filename: fields.filename,
      preview: fields.preview,
      file_key: fields.file_key,
      file_size: sealed.length,
    });
    if (!message?.file_key) throw new Error("no file message");
    const keys = currentKeys(joined.holding ?? holding);
    const place = { messageId: file.id, type: "image", date: file.date, time: file.time, senderKeyId: sender.memberKeyId };
    expect(await openRoomValue(keys, { ...place, field: "filename" }, message.filename)).toBe(name);
    const download = await bo.device.raw("GET", message.file_url);
    expect(download.status).toBe(200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    const key = await openRoomFileKey(keys, place, message.file_key);
    const opened = new Blob([bytes]).stream().pipeThrough(openRecordStream(key, file.id, bytes.length));
    expect(new Uint8Array(await new Response(opened).arrayBuffer())).toEqual(data);
    expect((await eve.device.raw("GET", message.file_url)).status).toBe(404);
    expect(message.file_url).toBe(API.file(location.split("/").pop() ?? ""));

    const dump = [...(await everyRow(server)).values()].join("\n");
    expect(dump.includes("Qzx secret")).toBe(false);
  });

  it("refuses at the last byte a file sealed under a generation the room has left, and keeps none of it", async () => {
    const ana = await person(server, "Ana");
    const { res, holding } = await createRoomThroughApi(ana.device, "Ana", "Stale");
    const roomId = res.body.id;
    const at = new Date(server.clock.now());
    const file = { id: crypto.randomUUID(), date: formatStoredDate(at), time: formatStoredTime(at), type: "file", name: "old.bin" };
    const sender = roomSender(holding, 1);
    const { fields, fileKey } = await sealRoomFile(sender, file);
    const data = new Uint8Array(randomBytes(1000));
    const source = createSealingSource({ fileKey, messageId: file.id, plainLength: data.length, read: readFrom(data) });
    const sealed = await source.slice(0, source.size);
    const meta = {
      discussion_id: roomId,
      sender_key_id: sender.memberKeyId,
      type: "file",
      message_id: file.id,
      date: file.date,
      time: file.time,
    };
    const { res: started, location } = await create(ana.device, sealed.length, header({ ...meta, ...fields, generation: 1 }));
    expect(started.status).toBe(201);

    // The room rotates while the bytes are on their way.
    const { rotation, keep } = await makeRotation(holding, new Map([[holding.self.keyId, "Ana"]]));
    await keep();
    const entries = await Promise.all(rotation.roster.map((e) => entryBody(currentKeys(holding), e, "Ana")));
    const body = { generation: 2, sender_key_id: holding.self.keyId, entries, wraps: rotation.wraps.map(wrapBody) };
    expect((await ana.device.post(ROOMS_API.generations(roomId), body)).status).toBe(201);

    const patched = await patch(ana.device, location, 0, sealed);
    expect(patched.status).toBe(409);
    expect(((await patched.json()) as { error: { code: string } }).error.code).toBe("generation_not_current");
    const listed = await ana.device.get<{ messages: DiscussionMessage[] }>(DISCUSSIONS_API.messages(roomId));
    expect(listed.body.messages).toEqual([]);
    expect(await server.db.selectFrom("uploads").select("id").where("space_id", "=", roomId).execute()).toEqual([]);
  });
});

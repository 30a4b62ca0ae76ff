import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { API, type DateMessages, type Message } from "@daysync/shared";
import contentDisposition from "content-disposition";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { create, metadata, offsetOf, patch, TUS, uploadFile } from "../../testing/tus-client.ts";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const b64 = (text: string) => Buffer.from(text).toString("base64");

const PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** A real PNG followed by random bytes: detected as an image by its content. */
function pngLike(size: number) {
  return Buffer.concat([PIXEL_PNG, randomBytes(size - PIXEL_PNG.length)]);
}

const storedFiles = (server: TestServer) => readdirSync(path.join(server.dataDir, "files")).filter((f) => !f.endsWith(".json"));

let server: TestServer;
let owner: Device;
beforeAll(async () => {
  server = await startTestServer({ FREE_MAX_FILE_BYTES: String(8 * 1024 * 1024) });
  owner = new Device(server.url);
  await owner.register("Uma", "uma@example.com");
});
afterAll(() => server.close());

describe("resumable uploads", () => {
  it("completes an upload sent in several PATCH requests, makes a file message and serves identical bytes", async () => {
    const other = new Device(server.url);
    await other.login("uma@example.com");
    const live = await other.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));

    const data = pngLike(3 * 1024 * 1024 + 17);
    const meta = metadata("holiday photo.png", server.clock.now());
    const { res, location } = await create(owner, data.length, meta.header);
    expect(res.status).toBe(201);
    expect(location).toMatch(/^\/api\/uploads\/[a-f0-9]{32}$/);

    const chunk = 1024 * 1024;
    for (let offset = 0; offset < data.length; offset += chunk) {
      const r = await patch(owner, location, offset, data.subarray(offset, offset + chunk));
      expect(r.status).toBe(204);
      expect(Number(r.headers.get("upload-offset"))).toBe(Math.min(offset + chunk, data.length));
    }

    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "message.created"));
    const created = live.events().find((e) => e.event.kind === "message.created");
    const message = created?.event.kind === "message.created" ? created.event.message : undefined;
    expect(message).toMatchObject({
      id: meta.messageId,
      type: "image",
      filename: "holiday photo.png",
      content: "",
      file_size: data.length,
    });
    const days = await owner.get<{ days: DateMessages[] }>(API.days);
    expect(days.body.days[0]).toMatchObject({ last_message: "holiday photo.png", last_message_type: "image" });

    const download = await owner.raw("GET", message?.file_url ?? "");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(contentDisposition.parse(download.headers.get("content-disposition") ?? "")).toEqual({
      type: "attachment",
      parameters: { filename: "holiday photo.png" },
    });
    expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(data));

    const part = await owner.raw("GET", message?.file_url ?? "", { headers: { range: "bytes=1000-1999" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${data.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(1000, 2000))).toBe(true);
    const outside = await owner.raw("GET", message?.file_url ?? "", { headers: { range: `bytes=${data.length + 10}-` } });
    expect(outside.status).toBe(416);
    live.close();
  });

  it("refuses uploads without a session", async () => {
    const anon = new Device(server.url);
    const { res } = await create(anon, 10, metadata("a.txt", server.clock.now()).header);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: "unauthenticated", message: "Please sign in to continue." } });
  });

  it("lets no other user see, resume, cancel or download an upload", async () => {
    const data = randomBytes(4000);
    const { location } = await create(owner, data.length, metadata("secret.bin", server.clock.now()).header);
    await patch(owner, location, 0, data.subarray(0, 1000));
    const intruder = new Device(server.url);
    await intruder.register("Ivo", "ivo@example.com");
    expect((await offsetOf(intruder, location)).status).toBe(404);
    expect((await patch(intruder, location, 1000, data.subarray(1000))).status).toBe(404);
    expect((await intruder.raw("DELETE", location, { headers: TUS })).status).toBe(404);
    expect((await offsetOf(owner, location)).offset).toBe(1000);

    await patch(owner, location, 1000, data.subarray(1000));
    const id = location.split("/").pop() ?? "";
    expect((await owner.raw("GET", API.file(id))).status).toBe(200);
    const refused = await intruder.raw("GET", API.file(id));
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: { code: "not_found", message: "No such file." } });
  });

  it("refuses a file over the plan's limit before storing a byte", async () => {
    const before = storedFiles(server).length;
    const { res } = await create(owner, 9 * 1024 * 1024, metadata("huge.iso", server.clock.now()).header);
    expect(res.status).toBe(413);
    expect(JSON.parse(await res.text())).toEqual({
      error: { code: "payload_too_large", message: "This file is too large: your plan allows files up to 8 MiB." },
    });
    expect(storedFiles(server).length).toBe(before);
    expect(await (await owner.raw("GET", API.uploadLimit)).json()).toEqual({ max_file_size: 8 * 1024 * 1024, label: "8 MiB" });
  });

  it("refuses metadata it cannot trust", async () => {
    const noName = await create(owner, 10, metadata("", server.clock.now()).header);
    expect(noName.res.status).toBe(400);
    expect(JSON.parse(await noName.res.text())).toMatchObject({ error: { field: "filename" } });
    const badId = await create(owner, 10, `filename ${b64("a.txt")},message_id ${b64("nope")}`);
    expect(badId.res.status).toBe(400);
  });

  it("stores hostile file names by id and serves them back safely", async () => {
    const hostile = `../../etc/passwd"; evil=1; X-Injected: yes ü.txt`;
    const data = randomBytes(64);
    const meta = metadata(hostile, server.clock.now());
    const { location } = await create(owner, data.length, meta.header);
    expect((await patch(owner, location, 0, data)).status).toBe(204);
    for (const f of readdirSync(path.join(server.dataDir, "files"))) expect(f).toMatch(/^[a-f0-9]{32}(\.json)?$/);
    const id = location.split("/").pop() ?? "";
    const res = await owner.raw("GET", API.file(id));
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    // The download keeps the name but never its path.
    expect(contentDisposition.parse(res.headers.get("content-disposition") ?? "").parameters.filename).toBe(path.basename(hostile));
  });

  it("leaves no message and no file when an upload is cancelled", async () => {
    const data = randomBytes(5000);
    const meta = metadata("draft.bin", server.clock.now());
    const before = storedFiles(server).length;
    const { location } = await create(owner, data.length, meta.header);
    await patch(owner, location, 0, data.subarray(0, 2000));
    const cancelled = await owner.raw("DELETE", location, { headers: TUS });
    expect(cancelled.status).toBe(204);
    expect(storedFiles(server).length).toBe(before);
    const row = await server.db.selectFrom("messages").select("id").where("id", "=", meta.messageId).executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it("deletes a message's file when the message expires", async () => {
    const data = randomBytes(100);
    const meta = metadata("fleeting.bin", server.clock.now());
    const { location } = await create(owner, data.length, meta.header);
    await patch(owner, location, 0, data);
    const id = location.split("/").pop() ?? "";
    expect(storedFiles(server)).toContain(id);
    server.clock.advance(16 * 60_000);
    await server.sweeper.sweep();
    expect(storedFiles(server)).not.toContain(id);
    expect((await owner.raw("GET", API.file(id))).status).toBe(404);
    const messages = await server.db.selectFrom("messages").select("id").where("id", "=", meta.messageId).execute();
    expect(messages).toEqual([]);
  });
});

describe("interrupted uploads", () => {
  it("resume from their offset after the server restarts", async () => {
    const first = await startTestServer();
    const device = new Device(first.url);
    await device.register("Rex", "rex@example.com");
    const data = randomBytes(2 * 1024 * 1024);
    const meta = metadata("restart.bin", first.clock.now());
    const { location } = await create(device, data.length, meta.header);
    await patch(device, location, 0, data.subarray(0, 700_000));
    await first.close({ keepData: true });

    const second = await startTestServer({}, { dataDir: first.dataDir, clock: first.clock });
    try {
      const again = new Device(second.url);
      again.cookie = device.cookie;
      const { status, offset } = await offsetOf(again, location);
      expect(status).toBe(200);
      expect(offset).toBe(700_000);
      expect((await patch(again, location, offset, data.subarray(offset))).status).toBe(204);
      const day = (await again.get<{ days: DateMessages[] }>(API.days)).body.days[0];
      const list = await again.get<{ messages: Message[] }>(API.dayMessages(day?.id ?? ""));
      const fileUrl = list.body.messages.find((m) => m.id === meta.messageId)?.file_url ?? "";
      const download = await again.raw("GET", fileUrl);
      expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(data));
    } finally {
      await second.close();
    }
  });

  it("are cleaned up when abandoned, while finished files stay as long as their message", async () => {
    const quick = await startTestServer({ UPLOAD_EXPIRY_MS: "1000" });
    try {
      const device = new Device(quick.url);
      await device.register("Abe", "abe@example.com");
      const done = await uploadFile(device, randomBytes(100), metadata("kept.bin", quick.clock.now()).header);
      const { location } = await create(device, 1000, metadata("left.bin", quick.clock.now()).header);
      await patch(device, location, 0, randomBytes(10));
      expect(storedFiles(quick)).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 1100));
      const { removedUploads } = await quick.sweeper.sweep();
      expect(removedUploads).toBe(1);
      expect(storedFiles(quick)).toEqual([done]);
      expect((await device.raw("GET", API.file(done))).status).toBe(200);
    } finally {
      await quick.close();
    }
  });
});

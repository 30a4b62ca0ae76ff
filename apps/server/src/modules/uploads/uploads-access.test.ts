import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { API } from "@daysync/shared";
import contentDisposition from "content-disposition";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, offsetOf, patch, TUS, uploadFile } from "../../testing/tus-client.ts";

const storedFiles = (server: TestServer) => readdirSync(path.join(server.dataDir, "files")).filter((f) => !f.endsWith(".json"));
const uploadRow = (server: TestServer, id: string) => server.db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();

let server: TestServer;
let owner: Device;
let intruder: Device;
beforeAll(async () => {
  server = await startTestServer();
  owner = new Device(server.url);
  await owner.register("Olga", "olga@example.com");
  intruder = new Device(server.url);
  await intruder.register("Ivan", "ivan@example.com");
});
afterAll(() => server.close());

describe("retention on every read", () => {
  it("answers 404 for a file whose message has expired, before the sweeper has run", async () => {
    const id = await uploadFile(owner, randomBytes(300), metadata("soon-gone.bin", server.clock.now()).header);
    expect((await owner.raw("GET", API.file(id))).status).toBe(200);
    expect((await offsetOf(owner, `${API.uploads}/${id}`)).status).toBe(200);

    server.clock.advance(16 * 60_000);
    const download = await owner.raw("GET", API.file(id));
    expect(download.status).toBe(404);
    expect(await download.json()).toEqual({ error: { code: "not_found", message: "No such file." } });
    expect((await offsetOf(owner, `${API.uploads}/${id}`)).status).toBe(404);
    expect((await owner.raw("GET", `${API.uploads}/${id}`, { headers: TUS })).status).toBe(404);
  });
});

describe("nothing of one account can be touched from another", () => {
  it("refuses an upload that reuses another user's message id with 409, and their file stays", async () => {
    const data = randomBytes(500);
    const theirs = metadata("theirs.bin", server.clock.now());
    const id = await uploadFile(owner, data, theirs.header);
    const before = storedFiles(server);

    const { res } = await create(intruder, 10, metadata("mine.bin", server.clock.now(), theirs.messageId).header);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: { code: "conflict", message: "That message id is already in use." } });
    expect(storedFiles(server)).toEqual(before);
    const download = await owner.raw("GET", API.file(id));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
  });

  it("answers 409 when the message id was taken by another user during the upload, and changes nothing of theirs", async () => {
    const shared = crypto.randomUUID();
    const started = await create(intruder, 10, metadata("race.bin", server.clock.now(), shared).header);
    expect(started.res.status).toBe(201);
    await patch(intruder, started.location, 0, new Uint8Array(4));

    const data = randomBytes(200);
    const id = await uploadFile(owner, data, metadata("first.bin", server.clock.now(), shared).header);
    const finished = await patch(intruder, started.location, 4, new Uint8Array(6));
    expect(finished.status).toBe(409);
    expect(await finished.json()).toEqual({ error: { code: "conflict", message: "That message id is already in use." } });

    expect(await uploadRow(server, id)).toMatchObject({ user_id: expect.any(String), message_id: shared });
    const download = await owner.raw("GET", API.file(id));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
    // The intruder's own bytes are gone; the owner's stay.
    expect(storedFiles(server)).toContain(id);
    expect(storedFiles(server)).not.toContain(started.location.split("/").pop());
  });

  it("leaves another user's text message alone when an upload finishes with its id", async () => {
    const shared = crypto.randomUUID();
    const started = await create(intruder, 5, metadata("late.bin", server.clock.now(), shared).header);
    const sent = await owner.post(API.messages, { ...textMessage("mine", server.clock.now()), id: shared });
    expect(sent.status).toBe(201);
    expect((await patch(intruder, started.location, 0, new Uint8Array(5))).status).toBe(409);
    const row = await server.db.selectFrom("messages").select(["content", "type"]).where("id", "=", shared).executeTakeFirst();
    expect(row).toEqual({ content: "mine", type: "text" });
  });
});

describe("downloads", () => {
  it("serves no bytes from the tus URL: files come only from /api/files, as attachments", async () => {
    const html = Buffer.from("<!doctype html><script>alert(document.cookie)</script>");
    const id = await uploadFile(owner, html, metadata("pic.png", server.clock.now(), undefined, { filetype: "image/png" }).header);
    const tusGet = await owner.raw("GET", `${API.uploads}/${id}`, { headers: TUS });
    expect(tusGet.status).toBe(404);
    expect(tusGet.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await tusGet.text()).not.toContain("<script>");
    expect(tusGet.headers.get("x-content-type-options")).toBe("nosniff");

    const file = await owner.raw("GET", API.file(id));
    expect(file.headers.get("content-type")).toBe("application/octet-stream");
    expect(contentDisposition.parse(file.headers.get("content-disposition") ?? "").type).toBe("attachment");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers every tus request with the same protective headers as the rest of the API", async () => {
    const { res, location } = await create(owner, 10, metadata("headers.bin", server.clock.now()).header);
    const head = await owner.raw("HEAD", location, { headers: TUS });
    const done = await patch(owner, location, 0, new Uint8Array(10));
    for (const r of [res, head, done]) {
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("referrer-policy")).toBe("same-origin");
    }
  });
});

import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { create, metadata, patch, TUS, uploadFile } from "../../testing/tus-client.ts";

const KiB = 1024;
const MiB = 1024 * KiB;
const storedFiles = (server: TestServer) => readdirSync(path.join(server.dataDir, "files")).filter((f) => !f.endsWith(".json"));

let server: TestServer;
let device: Device;
beforeAll(async () => {
  server = await startTestServer({ FREE_MAX_FILE_BYTES: String(4 * MiB), FREE_STORAGE_BYTES: String(MiB) });
  device = new Device(server.url);
  await device.register("Lia", "lia@example.com");
});
afterAll(() => server.close());

describe("what an upload may declare", () => {
  it("accepts a file the browser gave no type, whose filetype tus sends as a key without a value", async () => {
    const header = metadata("notes.unknownext", server.clock.now()).header.replace(/filetype [^,]*/, "filetype");
    const { res } = await create(device, 10, header);
    expect(res.status, await res.clone().text()).toBe(201);
  });

  it("refuses a file name with line breaks or other control characters with a 400 naming filename", async () => {
    for (const name of ["two\r\nlines.txt", "bell\u0007.txt", "tab\there.txt", "del\u007f.txt", "c1\u0085.txt"]) {
      const { res } = await create(device, 10, metadata(name, server.clock.now()).header);
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: "validation", message: "filename must not contain line breaks or other control characters.", field: "filename" },
      });
    }
    // NUL is refused as in any text.
    const { res } = await create(device, 10, metadata("nul\u0000.txt", server.clock.now()).header);
    expect(await res.json()).toEqual({
      error: { code: "validation", message: "filename must not contain the NUL character (U+0000).", field: "filename" },
    });
  });

  it("answers tus extensions it does not offer, and tus's own refusals, with a 400 and a JSON body", async () => {
    const meta = metadata("parts.bin", server.clock.now()).header;
    const concat = await device.raw("POST", API.uploads, {
      headers: { ...TUS, "upload-length": "10", "upload-metadata": meta, "upload-concat": "partial" },
    });
    expect(concat.status).toBe(400);
    expect(await concat.json()).toMatchObject({
      error: { code: "unsupported", message: expect.stringMatching(/^Not supported: Concatenation/) },
    });

    const deferred = await device.raw("POST", API.uploads, { headers: { ...TUS, "upload-defer-length": "1", "upload-metadata": meta } });
    expect(deferred.status).toBe(400);
    expect(await deferred.json()).toEqual({ error: { code: "validation", message: "Upload-Length is required." } });

    const { location } = await create(device, 10, meta);
    const wrongOffset = await patch(device, location, 5, new Uint8Array(5));
    expect(wrongOffset.status).toBe(409);
    expect(await wrongOffset.json()).toEqual({ error: { code: "conflict", message: expect.stringMatching(/offset/i) } });
  });

  it("says a body longer than its Upload-Length is too long for the upload, not for the plan", async () => {
    const message = "This request sends more bytes than the upload's Upload-Length.";
    const { location } = await create(device, 10, metadata("short.bin", server.clock.now()).header);
    const withLength = await patch(device, location, 0, new Uint8Array(20));
    expect(withLength.status).toBe(413);
    expect(await withLength.json()).toEqual({ error: { code: "payload_too_large", message } });

    // Without a Content-Length, the bytes are counted as they arrive.
    const chunked = await fetch(server.url + location, {
      method: "PATCH",
      headers: { ...TUS, cookie: device.cookie, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new Blob([new Uint8Array(20)]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: { code: "payload_too_large", message } });
  });
});

describe("storage per account", () => {
  it("counts live files and unfinished uploads, and refuses what would not fit before storing a byte", async () => {
    await uploadFile(device, randomBytes(512 * KiB), metadata("kept.bin", server.clock.now()).header);
    const unfinished = await create(device, 300 * KiB, metadata("half.bin", server.clock.now()).header);
    expect(unfinished.res.status).toBe(201);
    await patch(device, unfinished.location, 0, randomBytes(1000));
    const before = storedFiles(server);

    const refused = await create(device, 300 * KiB, metadata("one-too-many.bin", server.clock.now()).header);
    expect(refused.res.status).toBe(413);
    expect(await refused.res.json()).toEqual({
      error: {
        code: "storage_full",
        message: "Not enough storage for this file: your plan allows 1 MiB of files in total and 0.8 MiB is in use.",
      },
    });
    expect(storedFiles(server)).toEqual(before);

    // Cancelling the unfinished upload makes room.
    expect((await device.raw("DELETE", unfinished.location, { headers: TUS })).status).toBe(204);
    expect((await create(device, 300 * KiB, metadata("fits-now.bin", server.clock.now()).header)).res.status).toBe(201);
  });

  it("counts only the account's own files, and no expired ones", async () => {
    const other = new Device(server.url);
    await other.register("Oto", "oto@example.com");
    expect((await create(other, 900 * KiB, metadata("big.bin", server.clock.now()).header)).res.status).toBe(201);

    const fresh = new Device(server.url);
    await fresh.register("Fay", "fay@example.com");
    await uploadFile(fresh, randomBytes(900 * KiB), metadata("old.bin", server.clock.now()).header);
    expect((await create(fresh, 200 * KiB, metadata("new.bin", server.clock.now()).header)).res.status).toBe(413);
    // Once the message has expired (Free keeps 15 minutes) its file no longer counts, swept or not.
    server.clock.advance(16 * 60_000);
    expect((await create(fresh, 200 * KiB, metadata("new.bin", server.clock.now()).header)).res.status).toBe(201);
  });

  it("tells the account what its files take and what its plan allows, and no one else", async () => {
    const own = new Device(server.url);
    await own.register("Sam", "sam@example.com");
    const storage = () => own.get(API.storage);
    expect(await storage()).toMatchObject({ status: 200, body: { used: 0, limit: MiB } });

    await uploadFile(own, randomBytes(200 * KiB), metadata("kept.bin", server.clock.now()).header);
    const unfinished = await create(own, 300 * KiB, metadata("half.bin", server.clock.now()).header);
    expect(unfinished.res.status).toBe(201);
    expect((await storage()).body).toEqual({ used: 500 * KiB, limit: MiB });

    // Another account's files are not counted, and a visitor gets nothing.
    const other = new Device(server.url);
    await other.register("Ova", "ova@example.com");
    expect((await other.get(API.storage)).body).toEqual({ used: 0, limit: MiB });
    const visitor = await new Device(server.url).get(API.storage);
    expect(visitor.status).toBe(401);
    expect(visitor.body).toMatchObject({ error: { code: "unauthenticated" } });

    expect((await own.raw("DELETE", unfinished.location, { headers: TUS })).status).toBe(204);
    expect((await storage()).body).toEqual({ used: 200 * KiB, limit: MiB });
  });
});

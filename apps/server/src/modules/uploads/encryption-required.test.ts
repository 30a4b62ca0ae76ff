/**
 * Once an account has a key, a file reaches its days only sealed (docs/protocol/encryption.md, "File records"): a file in clear is
 * refused with 409 `encryption_required` when its upload is created, and at its last byte for one begun before the
 * key. Discussions stay in clear.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { API } from "@daysync/shared";
import contentDisposition from "content-disposition";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThroughApi, person } from "../../testing/discussion-api.ts";
import { keyDevice } from "../../testing/key-devices.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { create, metadata, patch, uploadFile } from "../../testing/tus-client.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
const idOf = (location: string) => location.split("/").pop() ?? "";

describe("a file in clear", () => {
  it("is refused into the days of an account with a key before a byte is stored, and still goes to a discussion", async () => {
    const { device, user } = await person(server, "Cy");
    expect((await keyDevice(device, user.id).keys.sync()).state).toBe("ready");
    const meta = metadata("plain.bin", server.clock.now());
    const { res } = await create(device, 70_000, meta.header);
    expect(res.status).toBe(409);
    expect(await codeOf(res)).toBe("encryption_required");
    expect((await device.raw("GET", API.message(meta.messageId))).status).toBe(404);

    const discussion = await createThroughApi(device);
    const data = randomBytes(70_000);
    const inDiscussion = metadata("minutes.bin", server.clock.now(), crypto.randomUUID(), { discussion_id: discussion.discussion.id });
    const id = await uploadFile(device, data, inDiscussion.header);
    const download = await device.raw("GET", API.file(id));
    expect(contentDisposition.parse(download.headers.get("content-disposition") ?? "").parameters.filename).toBe("minutes.bin");
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
  });

  it("begun before the account had a key is refused at its last byte and leaves no message and no file", async () => {
    const { device, user } = await person(server, "Early");
    const data = randomBytes(70_000);
    const meta = metadata("before the key.bin", server.clock.now());
    const { res, location } = await create(device, data.length, meta.header);
    expect(res.status).toBe(201);
    expect((await patch(device, location, 0, data.subarray(0, 1000))).status).toBe(204);
    // A device of the account makes its first key meanwhile.
    expect((await keyDevice(device, user.id).keys.sync()).state).toBe("ready");

    const last = await patch(device, location, 1000, data.subarray(1000));
    expect(last.status).toBe(409);
    expect(await codeOf(last)).toBe("encryption_required");
    expect((await device.raw("GET", API.message(meta.messageId))).status).toBe(404);
    expect(existsSync(path.join(server.dataDir, "files", idOf(location)))).toBe(false);
  });
});

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { API, DISCUSSIONS_API, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aliceBobAndCarol, messagesOf, NO_SUCH_DISCUSSION, ready } from "../../testing/discussion-api.ts";
import { addMember, endMembership } from "../../testing/discussion-factory.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { create, metadata, offsetOf, uploadFile } from "../../testing/tus-client.ts";

type Fixture = Awaited<ReturnType<typeof aliceBobAndCarol>>;
let server: TestServer;
let alice: Device;
let bob: Device;
let carol: Device;
let bobUser: User;
let aliceAndBob: Fixture["aliceAndBob"];
let now: Fixture["now"];

beforeAll(async () => {
  server = await startTestServer();
  ({ alice, bob, bobUser, carol, aliceAndBob, now } = await aliceBobAndCarol(server));
});
afterAll(() => server.close());

describe("files in a discussion", () => {
  it("are uploaded by a member, downloaded by every member and no one else, and their bytes go with the message", async () => {
    const d = await aliceAndBob();
    const data = randomBytes(2000);
    const meta = metadata("plan.pdf", now(), crypto.randomUUID(), { discussion_id: d.id });
    const bobLive = await ready(bob);
    const uploadId = await uploadFile(alice, data, meta.header);
    await bobLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.id === meta.messageId),
    );

    const [message] = (await messagesOf(bob, d.id)).body.messages;
    expect(message).toMatchObject({
      id: meta.messageId,
      type: "file",
      filename: "plan.pdf",
      file_url: API.file(uploadId),
      file_size: 2000,
    });
    const download = await bob.raw("GET", API.file(uploadId));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
    expect((await alice.raw("GET", API.file(uploadId))).status).toBe(200);
    const refused = await carol.raw("GET", API.file(uploadId));
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: { code: "not_found", message: "No such file." } });
    // The tus upload stays its uploader's.
    expect((await offsetOf(alice, `${API.uploads}/${uploadId}`)).status).toBe(200);
    expect((await offsetOf(bob, `${API.uploads}/${uploadId}`)).status).toBe(404);
    expect((await offsetOf(carol, `${API.uploads}/${uploadId}`)).status).toBe(404);
    // The storage counts it against the uploader.
    expect((await alice.get<{ used: number }>(API.storage)).body.used).toBeGreaterThanOrEqual(data.length);
    expect((await bob.get<{ used: number }>(API.storage)).body.used).toBe(0);

    // A member who is removed can no longer download.
    const dave = new Device(server.url);
    const daveUser = await dave.register("Dave", `dave-${crypto.randomUUID()}@example.com`);
    await addMember(server.db, d.id, daveUser.id, "Dave D", now());
    expect((await dave.raw("GET", API.file(uploadId))).status).toBe(200);
    await endMembership(server.db, d.id, daveUser.id, "removed", now());
    expect((await dave.raw("GET", API.file(uploadId))).status).toBe(404);

    // The creator deletes it: the bytes go.
    expect((await alice.request("DELETE", DISCUSSIONS_API.message(d.id, meta.messageId))).body).toEqual({ deleted: 1 });
    expect((await bob.raw("GET", API.file(uploadId))).status).toBe(404);
    expect(existsSync(path.join(server.dataDir, "files", uploadId))).toBe(false);
    bobLive.close();
  });

  it("cannot be sent into a discussion by a non-member, nor by a member whose membership ended during the upload", async () => {
    const d = await aliceAndBob();
    const { res } = await create(carol, 10, metadata("intruder.bin", now(), crypto.randomUUID(), { discussion_id: d.id }).header);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(NO_SUCH_DISCUSSION);
    const bad = await create(bob, 10, metadata("bad.bin", now(), crypto.randomUUID(), { discussion_id: "not-a-uuid" }).header);
    expect(bad.res.status).toBe(400);

    const meta = metadata("late.bin", now(), crypto.randomUUID(), { discussion_id: d.id });
    const started = await create(bob, 10, meta.header);
    expect(started.res.status).toBe(201);
    await endMembership(server.db, d.id, bobUser.id, "left", now());
    const finished = await bob.raw("PATCH", started.location, {
      headers: { "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new Uint8Array(10),
    });
    expect(finished.status).toBe(404);
    expect((await messagesOf(alice, d.id)).body.messages).toEqual([]);
  });
});

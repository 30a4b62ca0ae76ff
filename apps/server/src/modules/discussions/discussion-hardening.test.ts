/**
 * Issue 24's discussion holes: a removed or departed member's files stop counting against their storage, an
 * extension has an upper bound, an unfinished upload goes with its discussion, and an upload cannot take the id of
 * one's own text message.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import {
  API,
  DAY_MS,
  DISCUSSION_LIFETIME_MS,
  DISCUSSION_MAX_AHEAD_DAYS,
  DISCUSSIONS_API,
  type DiscussionDetails,
  type StorageResponse,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { createThroughApi, join, messagesOf, person } from "../../testing/discussion-api.ts";
import { addMember, createDiscussion } from "../../testing/discussion-factory.ts";
import { type Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, offsetOf, patch, uploadFile } from "../../testing/tus-client.ts";

const STORAGE = 10_000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ FREE_STORAGE_BYTES: String(STORAGE) });
});
afterAll(() => server.close());

const now = () => server.clock.now();
const used = async (device: Device) => (await device.get<StorageResponse>(API.storage)).body.used;
const onDisk = (uploadId: string) => existsSync(path.join(server.dataDir, "files", uploadId));
const intoDiscussion = (name: string, discussionId: string, messageId?: string) =>
  metadata(name, now(), messageId, { discussion_id: discussionId });

/** Ann's discussion with Bob as a member who uploaded a finished file and started another. */
async function bobWithFiles() {
  const { device: ann } = await person(server, "Ann");
  const discussion = (await createThroughApi(ann)).discussion;
  const { device: bob } = await person(server, "Bob");
  const joined = await join(bob, discussion.public_id, "Bob");
  const bobMemberId = joined.body.discussion.member_id;
  const file = randomBytes(6000);
  const uploadId = await uploadFile(bob, file, intoDiscussion("plan.pdf", discussion.id).header);
  const unfinished = await create(bob, 2000, intoDiscussion("half.bin", discussion.id).header);
  expect(unfinished.res.status).toBe(201);
  expect(await used(bob)).toBe(8000);
  return { ann, bob, discussion, bobMemberId, file, uploadId, unfinished };
}

describe("a member who is no longer one", () => {
  it("removed by the creator: their files stop counting against their storage and stay the discussion's", async () => {
    const { ann, bob, discussion, bobMemberId, file, uploadId } = await bobWithFiles();
    // Before: Bob's plan has no room for another 6000 bytes of his own.
    expect((await create(bob, 6000, metadata("own.bin", now()).header)).res.status).toBe(413);

    const removed = await ann.request("DELETE", DISCUSSIONS_API.member(discussion.id, bobMemberId));
    expect(removed.status).toBe(200);
    expect(await used(bob)).toBe(0);
    expect((await create(bob, 6000, metadata("own.bin", now()).header)).res.status).toBe(201);
    expect(await used(bob)).toBe(6000);

    const download = await ann.raw("GET", API.file(uploadId));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
  });

  it("who left: their files stop counting, and count again once they join again", async () => {
    const { bob, discussion } = await bobWithFiles();
    expect((await bob.post(DISCUSSIONS_API.leave(discussion.id))).status).toBe(204);
    expect(await used(bob)).toBe(0);

    expect((await join(bob, discussion.public_id, "Bob again")).status).toBe(201);
    expect(await used(bob)).toBe(8000);
  });
});

describe("extending", () => {
  it(`cannot push the end more than ${DISCUSSION_MAX_AHEAD_DAYS} days ahead of now: 409 naming the limit, the end unchanged`, async () => {
    const { device: ann, email } = await person(server, "Ann");
    expect((await runAdmin(["plan", "set", email, "premium"], server.env)).code).toBe(0);
    const { discussion } = await createThroughApi(ann);
    const extend = (days: number) => ann.post<DiscussionDetails>(DISCUSSIONS_API.extend(discussion.id), { days });

    expect((await extend(30)).status).toBe(200);
    expect((await extend(30)).body.discussion.ends_at).toBe(discussion.ends_at + 60 * DAY_MS);
    const tooFar = await extend(30);
    expect(tooFar.status).toBe(409);
    expect(tooFar.body).toEqual({
      error: {
        code: "extension_too_far",
        message: `A discussion can end at most ${DISCUSSION_MAX_AHEAD_DAYS} days from now: this one cannot be extended by 30 days.`,
      },
    });
    expect((await ann.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.discussion.ends_at).toBe(
      discussion.ends_at + 60 * DAY_MS,
    );
    // Up to the limit it still may: 7 + 60 + 7 + 7 + 7 = 88 days from now.
    for (const _ of [1, 2, 3]) expect((await extend(7)).status).toBe(200);
    expect((await extend(7)).status).toBe(409);
    // Time passes: the limit moves with now.
    server.clock.advance(10 * DAY_MS);
    expect((await extend(7)).body.discussion.ends_at).toBe(discussion.ends_at + 88 * DAY_MS);
  });
});

describe("an unfinished upload into a discussion that ends", () => {
  it("goes with it when the creator ends it: its bytes leave the disk and nothing counts any more", async () => {
    const { ann, bob, discussion, uploadId, unfinished } = await bobWithFiles();
    expect((await patch(bob, unfinished.location, 0, new Uint8Array(500))).status).toBe(204);
    const unfinishedId = unfinished.location.split("/").pop() ?? "";
    expect(onDisk(unfinishedId)).toBe(true);

    expect((await ann.request("DELETE", DISCUSSIONS_API.one(discussion.id))).status).toBe(204);
    expect(onDisk(uploadId)).toBe(false);
    expect(onDisk(unfinishedId)).toBe(false);
    expect(existsSync(path.join(server.dataDir, "files", `${unfinishedId}.json`))).toBe(false);
    expect((await offsetOf(bob, unfinished.location)).status).toBe(404);
    expect(await used(bob)).toBe(0);
  });

  it("stops a PATCH still streaming into it first, and its bytes leave the disk", async () => {
    const { ann, bob, discussion, unfinished } = await bobWithFiles();
    const unfinishedId = unfinished.location.split("/").pop() ?? "";
    // A body the test keeps open: 300 of the 2000 bytes, then nothing.
    const { readable: body, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    void writer.write(new Uint8Array(300));
    const streaming = fetch(server.url + unfinished.location, {
      method: "PATCH",
      headers: { cookie: bob.cookie, "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body,
      duplex: "half",
    });
    // Watched on disk: a HEAD would itself ask the PATCH to let go of the upload.
    await expect.poll(() => statSync(path.join(server.dataDir, "files", unfinishedId)).size).toBe(300);

    expect((await ann.request("DELETE", DISCUSSIONS_API.one(discussion.id))).status).toBe(204);
    expect(onDisk(unfinishedId)).toBe(false);
    // Answered while its body is still open: the server stopped reading it.
    const answer = await streaming;
    expect(answer.status).toBe(204);
    expect(answer.headers.get("upload-offset")).toBe("300");
    expect((await offsetOf(bob, unfinished.location)).status).toBe(404);
    await writer.close().catch(() => undefined);
  });

  it("goes with it when it expires", async () => {
    const { user: ann } = await person(server, "Ann");
    const { device: bob, user: bobUser } = await person(server, "Bob");
    const d = await createDiscussion(server.db, { ownerId: ann.id, ownerName: "Ann", now: now() });
    await addMember(server.db, d.id, bobUser.id, "Bob", now());
    const { res, location } = await create(bob, 3000, intoDiscussion("later.bin", d.id).header);
    expect(res.status).toBe(201);
    const unfinishedId = location.split("/").pop() ?? "";
    expect(onDisk(unfinishedId)).toBe(true);

    server.clock.advance(DISCUSSION_LIFETIME_MS);
    expect((await server.sweeper.sweep()).closedDiscussions).toBeGreaterThanOrEqual(1);
    expect(onDisk(unfinishedId)).toBe(false);
    expect(await used(bob)).toBe(0);
  });
});

describe("an upload naming the id of one's own text message", () => {
  it("is refused with 409 in a discussion, and nothing is stored or counted", async () => {
    const { device: ann } = await person(server, "Ann");
    const { discussion } = await createThroughApi(ann);
    const text = textMessage("hello", now());
    expect((await ann.post(DISCUSSIONS_API.messages(discussion.id), text)).status).toBe(201);

    const { res } = await create(ann, 100, intoDiscussion("hidden.bin", discussion.id, text.id).header);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: { code: "conflict", message: "That message id is already in use." } });
    expect(await used(ann)).toBe(0);
  });

  it("is refused with 409 in one's own day, and nothing is stored or counted", async () => {
    const { device: ann } = await person(server, "Ann");
    const text = textMessage("hello", now());
    expect((await ann.post(API.messages, text)).status).toBe(201);
    const { res } = await create(ann, 100, metadata("hidden.bin", now(), text.id).header);
    expect(res.status).toBe(409);
    expect(await used(ann)).toBe(0);
  });

  it("sent while the upload runs: the upload's end answers 409, its file is neither served nor counted", async () => {
    const { device: ann } = await person(server, "Ann");
    const { discussion } = await createThroughApi(ann);
    const text = textMessage("first", now());
    const started = await create(ann, 100, intoDiscussion("late.bin", discussion.id, text.id).header);
    expect(started.res.status).toBe(201);
    expect((await ann.post(DISCUSSIONS_API.messages(discussion.id), text)).status).toBe(201);

    const finished = await patch(ann, started.location, 0, new Uint8Array(100));
    expect(finished.status).toBe(409);
    const uploadId = started.location.split("/").pop() ?? "";
    expect((await ann.raw("GET", API.file(uploadId))).status).toBe(404);
    expect(onDisk(uploadId)).toBe(false);
    expect(await used(ann)).toBe(0);
    expect((await messagesOf(ann, discussion.id)).body.messages).toMatchObject([{ id: text.id, type: "text", content: "first" }]);
  });

  it("finishing the same upload again (a retried last PATCH) keeps its file", async () => {
    const { device: ann } = await person(server, "Ann");
    const meta = metadata("twice.bin", now());
    const { location } = await create(ann, 10, meta.header);
    expect((await patch(ann, location, 0, new Uint8Array(10))).status).toBe(204);
    expect((await patch(ann, location, 10, new Uint8Array(0))).status).toBe(204);
    expect((await ann.raw("GET", API.file(location.split("/").pop() ?? ""))).status).toBe(200);
    expect(await used(ann)).toBe(10);
  });
});

import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DISCUSSION_LIFETIME_MS, DISCUSSIONS_API, type DiscussionDetails, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThroughApi, NO_SUCH_DISCUSSION as NOT_FOUND, person as signedIn } from "../../testing/discussion-api.ts";
import { type Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ DISCUSSION_MAX_MEMBERS: "3" });
});
afterAll(() => server.close());

const person = (name: string, on = server) => signedIn(on, name);
const create = async (device: Device, title = "Trip") => (await createThroughApi(device, title, "Owner")).discussion;

/** A file message in the discussion with its upload row and bytes, as the upload route will store them. */
async function storeFile(spaceId: string, authorId: string) {
  const messageId = randomUUID();
  const uploadId = randomUUID().replace(/-/g, "");
  const now = server.clock.now();
  await server.db
    .insertInto("messages")
    .values({
      id: messageId,
      space_id: spaceId,
      user_id: authorId,
      date_message_id: null,
      type: "file",
      content: "",
      filename: "notes.txt",
      file_url: `/api/files/${uploadId}`,
      date: "1/1/2026",
      time: "12:00 PM",
      url: "",
      created_at: now,
      device_id: null,
      device_name: null,
      preview: "",
      file_key: "",
    })
    .execute();
  await server.db
    .insertInto("uploads")
    .values({
      id: uploadId,
      user_id: authorId,
      space_id: spaceId,
      message_id: messageId,
      filename: "notes.txt",
      mime: "text/plain",
      size: 5,
      created_at: now,
    })
    .execute();
  await server.db
    .insertInto("expired_messages")
    .values({ id: randomUUID(), user_id: authorId, space_id: spaceId, expired_at: now })
    .execute();
  const dir = path.join(server.dataDir, "files");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, uploadId), "hello");
  expect(await server.storage.size(uploadId)).toBe(5);
  return { messageId, uploadId };
}

async function rowsOf(spaceId: string) {
  const count = async (table: "messages" | "uploads" | "expired_messages" | "space_members") =>
    (await server.db.selectFrom(table).select("id").where("space_id", "=", spaceId).execute()).length;
  return {
    spaces: (await server.db.selectFrom("spaces").select("id").where("id", "=", spaceId).execute()).length,
    space_members: await count("space_members"),
    messages: await count("messages"),
    uploads: await count("uploads"),
    expired_messages: await count("expired_messages"),
  };
}

const closedEvents = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "discussion.closed" ? [m.event] : []));

describe("members", () => {
  it("stops at DISCUSSION_MAX_MEMBERS with a 409 naming the limit; a place freed by leaving can be taken", async () => {
    const { device: owner } = await person("Ann");
    const discussion = await create(owner);
    const { device: bob } = await person("Bob");
    const { device: cat } = await person("Cat");
    const { device: dan } = await person("Dan");
    expect((await bob.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Bob" })).status).toBe(201);
    expect((await cat.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Cat" })).status).toBe(201);
    const full = await dan.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Dan" });
    expect(full.status).toBe(409);
    expect(full.body).toEqual({
      error: { code: "discussion_full", message: "This discussion is full: it has the most members allowed (3)." },
    });
    // A member already in it is not refused.
    expect((await cat.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Cat" })).status).toBe(200);
    expect((await bob.post(DISCUSSIONS_API.leave(discussion.id))).status).toBe(204);
    expect((await dan.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Dan" })).status).toBe(201);
  });
  it("holds under joins at the same moment: exactly as many get in as there are places", async () => {
    const { device: owner } = await person("Ann");
    const discussion = await create(owner);
    const joiners = await Promise.all(Array.from({ length: 6 }, (_, i) => person(`J${i}`)));
    const statuses = await Promise.all(
      joiners.map(({ device }, i) =>
        device.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: `J${i}` }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(2);
    expect(statuses.filter((s) => s === 409)).toHaveLength(4);
    const details = await owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id));
    expect(details.body.discussion.member_count).toBe(3);
    expect(details.body.members).toHaveLength(3);
  });
});

describe("the end of a discussion", () => {
  it("expires at ends_at: the sweeper deletes the space, its members, messages, uploads and file bytes, and tells every member", async () => {
    const { device: owner, user: ownerUser } = await person("Ann");
    const discussion = await create(owner, "Expiring");
    const { device: bob, user: bobUser } = await person("Bob");
    await bob.post(DISCUSSIONS_API.join(discussion.public_id), { display_name: "Bob" });
    const ownFile = await storeFile(discussion.id, ownerUser.id);
    const bobFile = await storeFile(discussion.id, bobUser.id);
    const other = await create(owner, "Staying");
    const otherFile = await storeFile(other.id, ownerUser.id);
    const bobLive = await bob.live();
    await bobLive.waitFor((r) => r.some((m) => m.type === "ready"));

    server.clock.advance(DISCUSSION_LIFETIME_MS - 1000);
    expect((await server.sweeper.sweep()).closedDiscussions).toBe(0);
    expect(await rowsOf(discussion.id)).toEqual({ spaces: 1, space_members: 2, messages: 2, uploads: 2, expired_messages: 2 });

    // Extended by a day (as a premium member would) the second one outlives the first.
    await server.db
      .updateTable("spaces")
      .set({ ends_at: other.ends_at + 24 * 3600_000 })
      .where("id", "=", other.id)
      .execute();
    server.clock.advance(1000);
    expect((await server.sweeper.sweep()).closedDiscussions).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(discussion.id)).toEqual({ spaces: 0, space_members: 0, messages: 0, uploads: 0, expired_messages: 0 });
    expect(await server.storage.size(ownFile.uploadId)).toBeUndefined();
    expect(await server.storage.size(bobFile.uploadId)).toBeUndefined();
    expect(await rowsOf(other.id)).toEqual({ spaces: 1, space_members: 1, messages: 1, uploads: 1, expired_messages: 1 });
    expect(await server.storage.size(otherFile.uploadId)).toBe(5);

    await bobLive.waitFor((r) => closedEvents(r).length === 1);
    expect(closedEvents(bobLive.received)).toEqual([{ kind: "discussion.closed", id: discussion.id, reason: "expired" }]);
    const ownerReplay = await owner.live();
    await ownerReplay.waitFor((r) => r.some((m) => m.type === "ready"));
    expect(closedEvents(ownerReplay.received)).toEqual([{ kind: "discussion.closed", id: discussion.id, reason: "expired" }]);
    expect((await owner.get(DISCUSSIONS_API.one(discussion.id))).body).toEqual(NOT_FOUND);
    // The users' own spaces are untouched.
    expect((await server.db.selectFrom("spaces").select("id").where("id", "in", [ownerUser.id, bobUser.id]).execute()).length).toBe(2);
    bobLive.close();
    ownerReplay.close();
  });

  it("ended by its creator goes the same way, with reason ended", async () => {
    const { device: owner, user } = await person("Ann");
    const discussion = await create(owner);
    const file = await storeFile(discussion.id, user.id);
    const live = await owner.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    expect((await owner.request("DELETE", DISCUSSIONS_API.one(discussion.id))).status).toBe(204);
    expect(await rowsOf(discussion.id)).toEqual({ spaces: 0, space_members: 0, messages: 0, uploads: 0, expired_messages: 0 });
    expect(await server.storage.size(file.uploadId)).toBeUndefined();
    await live.waitFor((r) => closedEvents(r).length === 1);
    expect(closedEvents(live.received)).toEqual([{ kind: "discussion.closed", id: discussion.id, reason: "ended" }]);
    expect((await owner.request("DELETE", DISCUSSIONS_API.one(discussion.id))).body).toEqual(NOT_FOUND);
    live.close();
  });
});

describe("joining by ID is rate-limited", () => {
  it("per device: 429 after DISCUSSION_JOIN_RATE_LIMIT_MAX tries in a window, right ID or wrong; other devices go on", async () => {
    const strict = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "3", DISCUSSION_JOIN_RATE_LIMIT_WINDOW_MS: "60000" });
    try {
      const { device: owner } = await person("Ann", strict);
      const res = await owner.post<DiscussionDetails>(DISCUSSIONS_API.list, { title: "T", display_name: "A" });
      const { public_id } = res.body.discussion;
      const { device: guesser } = await person("Gus", strict);
      const statuses = [];
      for (const guess of ["AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC", public_id]) {
        statuses.push((await guesser.post(DISCUSSIONS_API.join(guess), { display_name: "G" })).status);
      }
      expect(statuses).toEqual([404, 404, 404, 429]);
      const refused = await guesser.post(DISCUSSIONS_API.join(public_id), { display_name: "G" });
      expect(refused.body).toEqual({
        error: { code: "rate_limited", message: expect.stringMatching(/^Too many tries to join\. Try again in \d+ seconds\.$/) },
      });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const { device: friend } = await person("Fay", strict);
      expect((await friend.post(DISCUSSIONS_API.join(public_id), { display_name: "F" })).status).toBe(201);
    } finally {
      await strict.close();
    }
  });

  it("per address: DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX counts every device of one address together", async () => {
    const strict = await startTestServer({ DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "4" });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const { device } = await person(`P${i}`, strict);
        for (let j = 0; j < 2; j++) statuses.push((await device.post(DISCUSSIONS_API.join("AAAAAAAAAA"), { display_name: "P" })).status);
      }
      expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
    } finally {
      await strict.close();
    }
  });
});

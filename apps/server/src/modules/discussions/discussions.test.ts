import { randomUUID } from "node:crypto";
import {
  DISCUSSION_LIFETIME_MS,
  DISCUSSION_ROUTES,
  DISCUSSIONS_API,
  type DiscussionDetails,
  formatPublicId,
  type MyDiscussion,
  normalizePublicId,
  PUBLIC_ID_ALPHABET,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import {
  createThroughApi as create,
  discussionEvents,
  join,
  NO_SUCH_DISCUSSION as NOT_FOUND,
  ready,
  readySeq,
  person as signedIn,
} from "../../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const DAY = 24 * 60 * 60 * 1000;
const person = (name: string) => signedIn(server, name);

/** A message in the discussion, stored as the send route will store it. */
async function storeMessage(spaceId: string, authorId: string, content: string, at: number) {
  const id = randomUUID();
  await server.db
    .insertInto("messages")
    .values({
      id,
      space_id: spaceId,
      user_id: authorId,
      date_message_id: null,
      type: "text",
      content,
      filename: "",
      file_url: "",
      date: "1/1/2026",
      time: "12:00 PM",
      url: "",
      created_at: at,
      device_id: null,
      device_name: null,
      preview: "",
      file_key: "",
    })
    .execute();
  return id;
}

describe("creating and joining a discussion", () => {
  it("creates one with a 10-character Crockford ID that ends 7 days later, with its creator as owner", async () => {
    const { device } = await person("Ann");
    const created = await create(device, "  Weekend trip ", "Annie");
    const { discussion, members } = created;
    expect(discussion.public_id).toMatch(new RegExp(`^[${PUBLIC_ID_ALPHABET}]{10}$`));
    expect(discussion).toMatchObject({
      title: "Weekend trip",
      created_at: server.clock.now(),
      ends_at: server.clock.now() + DISCUSSION_LIFETIME_MS,
      member_count: 1,
      last_message_at: null,
      display_name: "Annie",
      role: "owner",
      unread: 0,
    });
    expect(members).toEqual([{ id: discussion.member_id, display_name: "Annie", role: "owner" }]);
    expect((await device.get(DISCUSSIONS_API.one(discussion.id))).body).toEqual(created);
    const other = await create(device, "Another");
    expect(other.discussion.public_id).not.toBe(discussion.public_id);
  });

  it("refuses a missing title or display name, and visitors", async () => {
    const { device } = await person("Val");
    const res = await device.post(DISCUSSIONS_API.list, { title: " ", display_name: "V" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "validation", message: "Enter a title.", field: "title" } });
    const visitor = new Device(server.url);
    expect((await visitor.post(DISCUSSIONS_API.list, { title: "x", display_name: "y" })).status).toBe(401);
    expect((await visitor.get(DISCUSSIONS_API.list)).status).toBe(401);
  });

  it("joins by the ID however it is typed, and by the ID of the link; joining again answers 200 with the details", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner);
    const id = discussion.public_id;
    expect(normalizePublicId(id)).toBe(id);

    const typed = formatPublicId(id).toLowerCase().replace(/0/g, "o").replace(/1/g, "l");
    const { device: bob } = await person("Bob");
    const joined = await join(bob, typed, "Bobby");
    expect(joined.status).toBe(201);
    expect(joined.body.discussion).toMatchObject({ id: discussion.id, role: "member", display_name: "Bobby", member_count: 2 });
    expect(joined.body.members.map((m) => [m.display_name, m.role])).toEqual([
      ["Ann", "owner"],
      ["Bobby", "member"],
    ]);

    // The link (and its QR code) holds the ID as stored.
    const { device: cat } = await person("Cat");
    const fromLink = DISCUSSION_ROUTES.join(id).split("/").pop() ?? "";
    expect((await join(cat, decodeURIComponent(fromLink), "Cat")).status).toBe(201);
    const again = await join(cat, ` ${formatPublicId(id)} `, "Another name");
    expect(again.status).toBe(200);
    expect(again.body.discussion).toMatchObject({ display_name: "Cat", member_count: 3 });
  });

  it("answers the same 404 to a wrong ID, one that cannot be an ID, and an ended discussion", async () => {
    const { device } = await person("Dan");
    for (const typed of ["0000000000", "short", "UUUUUUUUUU"]) {
      const res = await join(device, typed, "Dan");
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    const { device: owner } = await person("Eve");
    const { discussion } = await create(owner);
    expect((await owner.request("DELETE", DISCUSSIONS_API.one(discussion.id))).status).toBe(204);
    const res = await join(device, discussion.public_id, "Dan");
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe("what only the creator may do", () => {
  it("renames, removes a member (who cannot rejoin) and ends it; a member gets 403 for each, and the owner cannot leave", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner, "Plans");
    const { device: bob } = await person("Bob");
    const bobJoined = (await join(bob, discussion.public_id, "Bob")).body;
    const { device: cat } = await person("Cat");
    await join(cat, discussion.public_id, "Cat");

    const rename = await bob.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: "Mine now" });
    expect(rename.status).toBe(403);
    expect(rename.body).toEqual({ error: { code: "forbidden", message: "Only the creator of this discussion can rename it." } });
    const ownerMember = discussion.member_id;
    const remove = await bob.request("DELETE", DISCUSSIONS_API.member(discussion.id, ownerMember));
    expect(remove.status).toBe(403);
    const end = await bob.request("DELETE", DISCUSSIONS_API.one(discussion.id));
    expect(end.status).toBe(403);
    expect(end.body).toEqual({ error: { code: "forbidden", message: "Only the creator of this discussion can end it." } });

    const renamed = await owner.request<DiscussionDetails>("PATCH", DISCUSSIONS_API.one(discussion.id), { title: " New plans " });
    expect(renamed.status).toBe(200);
    expect(renamed.body.discussion.title).toBe("New plans");
    expect((await bob.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.discussion.title).toBe("New plans");

    const leave = await owner.post(DISCUSSIONS_API.leave(discussion.id));
    expect(leave.status).toBe(409);
    expect(leave.body).toEqual({
      error: { code: "owner_cannot_leave", message: "You created this discussion, so you cannot leave it: end it instead." },
    });

    const removed = await owner.request<DiscussionDetails>("DELETE", DISCUSSIONS_API.member(discussion.id, bobJoined.discussion.member_id));
    expect(removed.status).toBe(200);
    expect(removed.body.members.map((m) => m.display_name)).toEqual(["Ann", "Cat"]);
    expect((await owner.request("DELETE", DISCUSSIONS_API.member(discussion.id, bobJoined.discussion.member_id))).status).toBe(404);
    for (const res of [
      await bob.get(DISCUSSIONS_API.one(discussion.id)),
      await join(bob, discussion.public_id, "Bob again"),
      await bob.post(DISCUSSIONS_API.leave(discussion.id)),
      await bob.post(DISCUSSIONS_API.read(discussion.id)),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect((await bob.get<{ discussions: MyDiscussion[] }>(DISCUSSIONS_API.list)).body.discussions).toEqual([]);

    expect((await owner.request("DELETE", DISCUSSIONS_API.one(discussion.id))).status).toBe(204);
    expect((await cat.get(DISCUSSIONS_API.one(discussion.id))).body).toEqual(NOT_FOUND);
    expect((await owner.get(DISCUSSIONS_API.one(discussion.id))).body).toEqual(NOT_FOUND);
    expect(await server.db.selectFrom("spaces").select("id").where("id", "=", discussion.id).execute()).toEqual([]);
  });

  it("lets a member leave and join again as the same member", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner);
    const { device: bob } = await person("Bob");
    const first = (await join(bob, discussion.public_id, "Bob")).body;
    expect((await bob.post(DISCUSSIONS_API.leave(discussion.id))).status).toBe(204);
    expect((await bob.get(DISCUSSIONS_API.one(discussion.id))).body).toEqual(NOT_FOUND);
    expect((await owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.discussion.member_count).toBe(1);
    const again = await join(bob, discussion.public_id, "Robert");
    expect(again.status).toBe(201);
    expect(again.body.discussion).toMatchObject({ member_id: first.discussion.member_id, display_name: "Robert", member_count: 2 });
  });
});

describe("who came and went", () => {
  it("tells every member, in the details and live, when it started and who joined, left or was removed", async () => {
    const { device: owner } = await person("Ann");
    const start = server.clock.now();
    const { discussion } = await create(owner, "Plans", "Annie");
    const ownerLive = await ready(owner);
    const { device: bob } = await person("Bob");
    server.clock.advance(1_000);
    const bobMember = (await join(bob, discussion.public_id, "Bobby")).body.discussion.member_id;
    const { device: cat } = await person("Cat");
    server.clock.advance(1_000);
    const catMember = (await join(cat, discussion.public_id, "Cat")).body.discussion.member_id;
    server.clock.advance(1_000);
    expect((await cat.post(DISCUSSIONS_API.leave(discussion.id))).status).toBe(204);
    server.clock.advance(1_000);
    const removed = await owner.request<DiscussionDetails>("DELETE", DISCUSSIONS_API.member(discussion.id, bobMember));

    const expected = [
      { member_id: discussion.member_id, display_name: "Annie", kind: "created", at: start },
      { member_id: bobMember, display_name: "Bobby", kind: "joined", at: start + 1_000 },
      { member_id: catMember, display_name: "Cat", kind: "joined", at: start + 2_000 },
      { member_id: catMember, display_name: "Cat", kind: "left", at: start + 3_000 },
      { member_id: bobMember, display_name: "Bobby", kind: "removed", at: start + 4_000 },
    ];
    expect(removed.body.member_changes).toEqual(expected);
    expect((await owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.member_changes).toEqual(expected);
    // Live as it happens, and the same again for a device that resumes from before.
    const upserts = (live: typeof ownerLive) => discussionEvents(live.received).filter((e) => e.kind === "discussion.upserted");
    await ownerLive.waitFor(() => upserts(ownerLive).length === 5);
    expect(upserts(ownerLive).at(-1)).toMatchObject({ member_changes: expected });
    ownerLive.close();
    const resumed = await ready(owner, readySeq(ownerLive.received));
    expect(upserts(resumed).map((e) => ("member_changes" in e ? e.member_changes.length : 0))).toEqual([5, 5, 5, 5]);
    resumed.close();
  });
});

describe("the caller's discussions", () => {
  it("lists the open ones, newest activity first, with unread messages by others since the last read", async () => {
    const { device: ann, user: annUser } = await person("Ann");
    const { device: bob, user: bobUser } = await person("Bob");
    const older = (await create(ann, "Older")).discussion;
    server.clock.advance(1000);
    const newer = (await create(ann, "Newer")).discussion;
    await join(bob, older.public_id, "Bob");

    const titles = async (device: Device) =>
      (await device.get<{ discussions: MyDiscussion[] }>(DISCUSSIONS_API.list)).body.discussions.map((d) => [d.title, d.unread]);
    expect(await titles(ann)).toEqual([
      ["Newer", 0],
      ["Older", 0],
    ]);

    server.clock.advance(1000);
    await storeMessage(older.id, bobUser.id, "hi", server.clock.now());
    await storeMessage(older.id, bobUser.id, "there", server.clock.now());
    await storeMessage(older.id, annUser.id, "my own", server.clock.now());
    expect(await titles(ann)).toEqual([
      ["Older", 2],
      ["Newer", 0],
    ]);
    expect(await titles(bob)).toEqual([["Older", 1]]);
    const listed = (await ann.get<{ discussions: MyDiscussion[] }>(DISCUSSIONS_API.list)).body.discussions[0];
    expect(listed?.last_message_at).toBe(server.clock.now());

    server.clock.advance(1000);
    expect((await ann.post(DISCUSSIONS_API.read(older.id))).status).toBe(204);
    expect(await titles(ann)).toEqual([
      ["Older", 0],
      ["Newer", 0],
    ]);

    // Past its end it is gone from the list and every route, even before the sweeper deletes it.
    server.clock.advance(DISCUSSION_LIFETIME_MS);
    expect(await titles(ann)).toEqual([]);
    expect((await ann.get(DISCUSSIONS_API.one(older.id))).body).toEqual(NOT_FOUND);
    expect((await join(bob, newer.public_id, "Bob")).body).toEqual(NOT_FOUND);
  });
});

describe("extending", () => {
  it("is for premium members: Free gets 403 premium_required; Premium moves the end by 7 or 30 days", async () => {
    const { device: owner } = await person("Ann");
    const { discussion } = await create(owner);
    const { device: bob, email: bobEmail } = await person("Bob");
    await join(bob, discussion.public_id, "Bob");

    const free = await owner.post(DISCUSSIONS_API.extend(discussion.id), { days: 7 });
    expect(free.status).toBe(403);
    expect(free.body).toEqual({ error: { code: "premium_required", message: "Extending a discussion needs the Premium plan." } });
    expect((await bob.post(DISCUSSIONS_API.extend(discussion.id), { days: 3 })).status).toBe(400);

    expect((await runAdmin(["plan", "set", bobEmail, "premium"], server.env)).code).toBe(0);
    const week = await bob.post<DiscussionDetails>(DISCUSSIONS_API.extend(discussion.id), { days: 7 });
    expect(week.status).toBe(200);
    expect(week.body.discussion.ends_at).toBe(discussion.ends_at + 7 * DAY);
    const month = await bob.post<DiscussionDetails>(DISCUSSIONS_API.extend(discussion.id), { days: 30 });
    expect(month.body.discussion.ends_at).toBe(discussion.ends_at + 37 * DAY);
    expect((await owner.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body.discussion.ends_at).toBe(
      discussion.ends_at + 37 * DAY,
    );

    const { device: stranger } = await person("Sam");
    expect((await stranger.post(DISCUSSIONS_API.extend(discussion.id), { days: 7 })).body).toEqual(NOT_FOUND);
  });
});

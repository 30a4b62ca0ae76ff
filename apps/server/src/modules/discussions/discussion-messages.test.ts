import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import {
  API,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionMessage,
  type PushPayload,
  responseSchemas,
  type ServerLiveMessage,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createDiscussion, endMembership } from "../../testing/discussion-factory.ts";
import { decryptPush, newSubscriptionKeys, type PushServiceDouble, startPushServiceDouble } from "../../testing/push-service-double.ts";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, offsetOf, uploadFile } from "../../testing/tus-client.ts";

const NO_SUCH_DISCUSSION = { error: { code: "not_found", message: "No such discussion." } };

let server: TestServer;
let pushService: PushServiceDouble;
let alice: Device;
let bob: Device;
let carol: Device;
let aliceUser: User;
let bobUser: User;
let carolUser: User;

beforeAll(async () => {
  server = await startTestServer();
  pushService = await startPushServiceDouble();
  alice = new Device(server.url);
  aliceUser = await alice.register("Alice Private", "alice-secret@example.com");
  // A name of the device that must never reach another member.
  const [aliceDevice] = (await alice.get<DevicesResponse>(DEVICES_API.list)).body.devices;
  await alice.request("PATCH", DEVICES_API.one(aliceDevice?.id ?? ""), { name: "Alice's hidden phone" });
  bob = new Device(server.url);
  bobUser = await bob.register("Bob Private", "bob-secret@example.com");
  carol = new Device(server.url);
  carolUser = await carol.register("Carol", "carol@example.com");
});
afterAll(async () => {
  await pushService.close();
  await server.close();
});

const now = () => server.clock.now();
const say = (content: string) => textMessage(content, now());

/** A discussion of Alice (owner, "Ally") with Bob ("Bobby") as a member. */
async function aliceAndBob() {
  const discussion = await createDiscussion(server.db, { ownerId: aliceUser.id, ownerName: "Ally", now: now() });
  const bobMemberId = await addMember(server.db, discussion.id, bobUser.id, "Bobby", now());
  return { ...discussion, bobMemberId };
}

const messagesOf = (device: Device, id: string) =>
  device.get<{ discussion: unknown; messages: DiscussionMessage[] }>(DISCUSSIONS_API.messages(id));

async function ready(device: Device, since = 0): Promise<LiveClient> {
  const live = await device.live(since);
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return live;
}

const discussionEvents = (live: LiveClient, discussionId?: string) =>
  live.events().filter((m) => {
    const event = m.event;
    if (event.kind === "discussion.message.created") return !discussionId || event.message.discussion_id === discussionId;
    if (event.kind === "discussion.messages.deleted") return !discussionId || event.discussion_id === discussionId;
    return false;
  });
const createdWith = (content: string) => (received: ServerLiveMessage[]) =>
  received.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.content === content);

describe("discussion messages", () => {
  it("are sent by members (idempotent by id), listed oldest first with author names, and deleted by author or creator", async () => {
    const d = await aliceAndBob();
    const first = say("hello all");
    const sent = await alice.post<{ message: DiscussionMessage }>(DISCUSSIONS_API.messages(d.id), first);
    expect(sent.status).toBe(201);
    expect(responseSchemas.discussionMessage.parse(sent.body)).toEqual(sent.body);
    expect(sent.body.message).toMatchObject({
      id: first.id,
      content: "hello all",
      type: "text",
      discussion_id: d.id,
      author: { id: d.ownerMemberId, display_name: "Ally" },
    });
    const again = await alice.post<{ message: DiscussionMessage }>(DISCUSSIONS_API.messages(d.id), first);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(sent.body);

    server.clock.advance(1000);
    const reply = say("hi Ally");
    expect((await bob.post(DISCUSSIONS_API.messages(d.id), reply)).status).toBe(201);

    const listed = await messagesOf(bob, d.id);
    expect(listed.status).toBe(200);
    expect(responseSchemas.discussionMessages.parse(listed.body)).toEqual(listed.body);
    expect(listed.body.messages.map((m) => [m.content, m.author.display_name])).toEqual([
      ["hello all", "Ally"],
      ["hi Ally", "Bobby"],
    ]);
    expect(listed.body.discussion).toMatchObject({
      id: d.id,
      public_id: d.publicId,
      title: d.title,
      member_id: d.bobMemberId,
      display_name: "Bobby",
      role: "member",
      member_count: 2,
      unread: 1,
      last_message_at: now(),
    });

    // A member deletes only their own; the creator any.
    const notHis = await bob.request("DELETE", DISCUSSIONS_API.message(d.id, first.id));
    expect(notHis.status).toBe(403);
    expect((await bob.request("DELETE", DISCUSSIONS_API.message(d.id, reply.id))).body).toEqual({ deleted: 1 });
    const third = say("one more");
    await bob.post(DISCUSSIONS_API.messages(d.id), third);
    expect((await alice.request("DELETE", DISCUSSIONS_API.message(d.id, third.id))).body).toEqual({ deleted: 1 });
    expect((await messagesOf(alice, d.id)).body.messages.map((m) => m.content)).toEqual(["hello all"]);

    // A deleted id is gone for good, as in a day; an id in use elsewhere is a conflict.
    const retried = await bob.post(DISCUSSIONS_API.messages(d.id), reply);
    expect(retried.status).toBe(410);
    expect((await bob.post(DISCUSSIONS_API.messages(d.id), first)).status).toBe(409);
    expect((await alice.post(API.messages, first)).status).toBe(409);
    expect((await alice.request("DELETE", DISCUSSIONS_API.message(d.id, reply.id))).status).toBe(404);
  });

  it("stay out of the author's own days, search and messages", async () => {
    const d = await aliceAndBob();
    const m = say("discussion only zebra");
    await alice.post(DISCUSSIONS_API.messages(d.id), m);
    expect((await alice.get(`${API.search}?q=zebra`)).body).toEqual({ results: [] });
    expect((await alice.get(`/api/messages/${m.id}`)).status).toBe(404);
    expect((await alice.request("DELETE", `/api/messages/${m.id}`)).status).toBe(404);
    const days = (await alice.get<{ days: Array<{ last_message: string }> }>(API.days)).body.days;
    expect(days.some((day) => day.last_message.includes("zebra"))).toBe(false);
  });

  it("answer the same 404 to a non-member, a removed or left member, an unknown or ended discussion, and 401 to no one", async () => {
    const d = await aliceAndBob();
    const kept = say("before they went");
    await alice.post(DISCUSSIONS_API.messages(d.id), kept);
    const dave = new Device(server.url);
    const daveUser = await dave.register("Dave", `dave-${crypto.randomUUID()}@example.com`);
    await addMember(server.db, d.id, daveUser.id, "Dave D", now());
    expect((await messagesOf(dave, d.id)).status).toBe(200);
    await endMembership(server.db, d.id, daveUser.id, "removed", now());
    const erin = new Device(server.url);
    const erinUser = await erin.register("Erin", `erin-${crypto.randomUUID()}@example.com`);
    await addMember(server.db, d.id, erinUser.id, "Erin E", now());
    await endMembership(server.db, d.id, erinUser.id, "left", now());

    const refusedEverything = async (device: Device, discussionId: string) => {
      const answers = [
        await device.get(DISCUSSIONS_API.messages(discussionId)),
        await device.post(DISCUSSIONS_API.messages(discussionId), say("let me in")),
        await device.request("DELETE", DISCUSSIONS_API.message(discussionId, kept.id)),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(NO_SUCH_DISCUSSION);
      }
    };
    await refusedEverything(carol, d.id);
    await refusedEverything(dave, d.id);
    await refusedEverything(erin, d.id);
    await refusedEverything(alice, crypto.randomUUID());
    // The personal space is a space, but not a discussion.
    await refusedEverything(alice, aliceUser.id);

    const anonymous = new Device(server.url);
    expect((await anonymous.get(DISCUSSIONS_API.messages(d.id))).status).toBe(401);
    expect((await anonymous.post(DISCUSSIONS_API.messages(d.id), say("x"))).status).toBe(401);
    expect((await anonymous.request("DELETE", DISCUSSIONS_API.message(d.id, kept.id))).status).toBe(401);

    // The author who left keeps their name on what they wrote.
    const left = await createDiscussion(server.db, { ownerId: aliceUser.id, ownerName: "Ally", now: now() });
    await addMember(server.db, left.id, carolUser.id, "Carrie", now());
    await carol.post(DISCUSSIONS_API.messages(left.id), say("bye"));
    await endMembership(server.db, left.id, carolUser.id, "left", now());
    expect((await messagesOf(alice, left.id)).body.messages.map((m) => m.author.display_name)).toEqual(["Carrie"]);

    const ending = await createDiscussion(server.db, { ownerId: aliceUser.id, ownerName: "Ally", now: now(), endsAt: now() + 60_000 });
    expect((await messagesOf(alice, ending.id)).status).toBe(200);
    server.clock.advance(60_000);
    await refusedEverything(alice, ending.id);
  });
});

describe("retention", () => {
  it("sweeps a Free author's own messages, never what they wrote in a discussion, which lives as long as it", async () => {
    const d = await aliceAndBob();
    await alice.post(DISCUSSIONS_API.messages(d.id), say("outlives the plan"));
    const own = say("private and short-lived");
    expect((await alice.post(API.messages, own)).status).toBe(201);
    server.clock.advance(2 * 60 * 60_000);
    expect((await server.sweeper.sweep()).deletedMessages).toBeGreaterThan(0);
    expect((await alice.get(`/api/messages/${own.id}`)).status).toBe(404);
    expect((await messagesOf(bob, d.id)).body.messages.map((m) => m.content)).toEqual(["outlives the plan"]);
  });
});

describe("live", () => {
  it("reaches every member at once, in order, and replays only to who is still a member, after reconnecting too", async () => {
    const d = await aliceAndBob();
    const dave = new Device(server.url);
    const daveUser = await dave.register("Dave", `dave-${crypto.randomUUID()}@example.com`);
    await addMember(server.db, d.id, daveUser.id, "Dave D", now());
    const bobLive = await ready(bob);
    const daveLive = await ready(dave);
    const carolLive = await ready(carol);

    const first = say("first for all");
    await alice.post(DISCUSSIONS_API.messages(d.id), first);
    await bobLive.waitFor(createdWith("first for all"));
    await daveLive.waitFor(createdWith("first for all"));
    const event = discussionEvents(bobLive, d.id)[0]?.event;
    expect(event).toMatchObject({
      kind: "discussion.message.created",
      message: { id: first.id, author: { id: d.ownerMemberId, display_name: "Ally" }, discussion_id: d.id },
      discussion: { id: d.id, title: d.title, member_count: 3 },
    });

    await endMembership(server.db, d.id, daveUser.id, "removed", now());
    await alice.post(DISCUSSIONS_API.messages(d.id), say("after Dave went"));
    await bobLive.waitFor(createdWith("after Dave went"));
    expect((await alice.request("DELETE", DISCUSSIONS_API.message(d.id, first.id))).status).toBe(200);
    await bobLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.messages.deleted" && m.event.ids.includes(first.id)),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(discussionEvents(daveLive, d.id).map((m) => m.event.kind)).toEqual(["discussion.message.created"]);
    expect(discussionEvents(carolLive)).toEqual([]);

    // Reconnecting from the start replays nothing of the discussion to the removed member, to a member everything.
    daveLive.close();
    const daveAgain = await ready(dave, 0);
    expect(discussionEvents(daveAgain)).toEqual([]);
    daveAgain.close();
    const bobAgain = await ready(bob, 0);
    expect(discussionEvents(bobAgain, d.id).map((m) => m.event.kind)).toEqual([
      // The first message is gone by now: its creation is not replayed, its deletion is.
      "discussion.message.created",
      "discussion.messages.deleted",
    ]);
    for (const live of [bobLive, bobAgain, carolLive]) live.close();
  });
});

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
    expect(message).toMatchObject({ id: meta.messageId, type: "file", filename: "plan.pdf", file_url: API.file(uploadId) });
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

describe("privacy", () => {
  it("nothing a member receives holds another member's email, user id, session id or device name", async () => {
    const d = await aliceAndBob();
    const aliceSessions = (await alice.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    const secrets = [aliceUser.email, aliceUser.id, "Alice Private", ...aliceSessions.flatMap((s) => [s.id, s.name])];
    const bobLive = await ready(bob);
    const seen: string[] = [];
    const record = (body: unknown) => seen.push(JSON.stringify(body));

    const text = say("a secret-free hello");
    await alice.post(DISCUSSIONS_API.messages(d.id), text);
    const file = metadata("notes.txt", now(), crypto.randomUUID(), { discussion_id: d.id });
    await uploadFile(alice, Buffer.from("some notes"), file.header);
    await bobLive.waitFor(() => discussionEvents(bobLive, d.id).length === 2);
    record((await messagesOf(bob, d.id)).body);
    record((await bob.post(DISCUSSIONS_API.messages(d.id), say("answer"))).body);
    await alice.request("DELETE", DISCUSSIONS_API.message(d.id, text.id));
    await bobLive.waitFor(() => discussionEvents(bobLive, d.id).length === 4);
    record(bobLive.received);
    bobLive.close();
    const replayed = await ready(bob, 0);
    record(replayed.received);
    replayed.close();

    const all = seen.join("\n");
    expect(all).toContain("a secret-free hello");
    expect(all).toContain("Ally");
    for (const secret of secrets) expect(all).not.toContain(secret);
  });
});

describe("web push", () => {
  it("notifies the other members' devices, never the author's, with the discussion's title and the author's display name", async () => {
    const d = await aliceAndBob();
    const subscribe = async (device: Device, endpointPath: string) => {
      const keys = newSubscriptionKeys();
      const res = await device.post("/api/push/subscriptions", {
        endpoint: `${pushService.url}${endpointPath}`,
        expirationTime: null,
        keys: keys.json,
      });
      expect(res.status).toBe(201);
      return keys;
    };
    const alicePhone = new Device(server.url);
    await alicePhone.login(aliceUser.email);
    await subscribe(alicePhone, "/push/alice-phone");
    const bobKeys = await subscribe(bob, "/push/bob");
    const before = pushService.received.length;

    const sent = await alice.post<{ message: DiscussionMessage }>(DISCUSSIONS_API.messages(d.id), say("dinner at eight?"));
    await pushService.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    const pushes = pushService.received.slice(before);
    expect(pushes.map((p) => p.path)).toEqual(["/push/bob"]);
    const push = pushes[0];
    if (!push) throw new Error("no push");
    const payload = JSON.parse(decryptPush(push.body, bobKeys).toString("utf8")) as PushPayload;
    expect(payload).toEqual({
      kind: "message.created",
      title: d.title,
      body: "Ally: dinner at eight?",
      day_id: d.id,
      discussion_id: d.id,
      message_id: sent.body.message.id,
      url: `/discussions/${d.id}`,
    });
    const raw = decryptPush(push.body, bobKeys).toString("utf8");
    for (const secret of [aliceUser.email, aliceUser.id]) expect(raw).not.toContain(secret);

    // Deleted: the notification closes on the other members' devices and the author's other ones.
    const beforeDelete = pushService.received.length;
    await alice.request("DELETE", DISCUSSIONS_API.message(d.id, sent.body.message.id));
    await pushService.waitFor(beforeDelete + 2);
    const closing = pushService.received.slice(beforeDelete);
    expect(closing.map((p) => p.path).sort()).toEqual(["/push/alice-phone", "/push/bob"]);
    const closed = closing.find((p) => p.path === "/push/bob");
    if (!closed) throw new Error("no push");
    expect(JSON.parse(decryptPush(closed.body, bobKeys).toString("utf8"))).toEqual({
      kind: "messages.deleted",
      message_ids: [sent.body.message.id],
      day_ids: [],
    });
  });
});

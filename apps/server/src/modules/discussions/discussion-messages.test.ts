import {
  API,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionMessage,
  responseSchemas,
  type ServerLiveMessage,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aliceBobAndCarol, messagesOf, NO_SUCH_DISCUSSION, ready } from "../../testing/discussion-api.ts";
import { addMember, createDiscussion, endMembership } from "../../testing/discussion-factory.ts";
import { Device, type LiveClient, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { metadata, uploadFile } from "../../testing/tus-client.ts";

type Fixture = Awaited<ReturnType<typeof aliceBobAndCarol>>;
let server: TestServer;
let alice: Device;
let bob: Device;
let carol: Device;
let aliceUser: User;
let carolUser: User;
let aliceAndBob: Fixture["aliceAndBob"];
let now: Fixture["now"];
let say: Fixture["say"];

beforeAll(async () => {
  server = await startTestServer();
  ({ alice, aliceUser, bob, carol, carolUser, aliceAndBob, now, say } = await aliceBobAndCarol(server));
});
afterAll(() => server.close());

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

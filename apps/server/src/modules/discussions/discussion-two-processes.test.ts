/**
 * Discussions over two server processes on one database, one Redis and one files folder, as when scaled out:
 * members connected to different processes see each other's joins and messages live, download each other's files,
 * and join tries are counted across both; an encrypted discussion's events cross the bus too.
 */
import path from "node:path";
import { API, DISCUSSIONS_API, type DiscussionDetails, ROOMS_API, type ServerFrame, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase, type Db } from "../../db/database.ts";
import { addMember, createDiscussion } from "../../testing/discussion-factory.ts";
import { createRoomThroughApi, linkJoinThroughApi, newMemberKey } from "../../testing/room-client.ts";
import { Device, textMessage } from "../../testing/test-server.ts";
import { metadata, uploadFile } from "../../testing/tus-client.ts";
import { startTwoServerProcesses, type TwoServerProcesses } from "../../testing/two-server-processes.ts";

let servers: TwoServerProcesses;
let db: Db;

beforeAll(async () => {
  servers = await startTwoServerProcesses({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "3" });
  db = connectDatabase({ databaseFile: path.join(servers.dataDir, "daysync.sqlite"), databaseUrl: servers.databaseUrl });
});
afterAll(async () => {
  await db?.destroy();
  await servers?.stop();
});

const createdWith = (content: string) => (received: ServerLiveMessage[]) =>
  received.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.content === content);

const upsertedMembers = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "discussion.upserted" ? [m.event.members.length] : []));

describe("discussions on two server processes", () => {
  it("brings each member's messages live to the other, and their files", async () => {
    const alice = new Device(servers.one.url);
    const aliceUser = await alice.register("Alice", `alice-${crypto.randomUUID()}@example.com`);
    const bob = new Device(servers.two.url);
    const bobUser = await bob.register("Bob", `bob-${crypto.randomUUID()}@example.com`);
    const d = await createDiscussion(db, { ownerId: aliceUser.id, ownerName: "Ally", now: Date.now() });
    await addMember(db, d.id, bobUser.id, "Bobby", Date.now());

    const aliceLive = await alice.live();
    const bobLive = await bob.live();
    await aliceLive.waitFor((r) => r.some((m) => m.type === "ready"));
    await bobLive.waitFor((r) => r.some((m) => m.type === "ready"));

    expect((await alice.post(DISCUSSIONS_API.messages(d.id), textMessage("from process one", Date.now()))).status).toBe(201);
    await bobLive.waitFor(createdWith("from process one"));
    expect((await bob.post(DISCUSSIONS_API.messages(d.id), textMessage("from process two", Date.now()))).status).toBe(201);
    await aliceLive.waitFor(createdWith("from process two"));

    const bytes = new Uint8Array(4096).map((_, i) => i % 251);
    const file = metadata("map.bin", Date.now(), crypto.randomUUID(), { discussion_id: d.id });
    const uploadId = await uploadFile(bob, bytes, file.header);
    await aliceLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "discussion.message.created" && m.event.message.id === file.messageId),
    );
    const download = await alice.raw("GET", API.file(uploadId));
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    aliceLive.close();
    bobLive.close();
  });

  it("tells a member on one process of a join on the other, and counts join tries across both", async () => {
    const ann = new Device(servers.one.url);
    await ann.register("Ann", `ann-${crypto.randomUUID()}@example.com`);
    const annLive = await ann.live();
    await annLive.waitFor((r) => r.some((m) => m.type === "ready"));
    const created = await ann.post<DiscussionDetails>(DISCUSSIONS_API.list, { title: "Both", display_name: "Ann" });
    const { public_id } = created.body.discussion;

    const email = `bob-${crypto.randomUUID()}@example.com`;
    const bobOnTwo = new Device(servers.two.url);
    await bobOnTwo.register("Bob", email);
    // The same session on the other process: one device behind a load balancer.
    const bobOnOne = new Device(servers.one.url);
    bobOnOne.cookie = bobOnTwo.cookie;

    expect((await bobOnTwo.post(DISCUSSIONS_API.join("AAAAAAAAAA"), { display_name: "Bob" })).status).toBe(404);
    expect((await bobOnOne.post(DISCUSSIONS_API.join("BBBBBBBBBB"), { display_name: "Bob" })).status).toBe(404);
    expect((await bobOnTwo.post(DISCUSSIONS_API.join(public_id), { display_name: "Bob" })).status).toBe(201);
    await annLive.waitFor((r) => upsertedMembers(r).includes(2), 5000);
    expect((await bobOnOne.post(DISCUSSIONS_API.join(public_id), { display_name: "Bob" })).status).toBe(429);
    annLive.close();
  });

  it("tells a member of an encrypted discussion on one process of a link join and a request to join on the other", async () => {
    const ann = new Device(servers.one.url);
    await ann.register("Ann", `ann-${crypto.randomUUID()}@example.com`);
    const { res, holding } = await createRoomThroughApi(ann, "Ann", "Room");
    expect(res.status).toBe(201);
    const annLive = await ann.live();
    await annLive.waitFor((r) => r.some((m) => m.type === "ready"));
    const roomKinds = (received: ServerLiveMessage[]) =>
      (received as ServerFrame[]).flatMap((m) => (m.type === "event" ? [m.event.kind] : []));

    const bo = new Device(servers.two.url);
    await bo.register("Bo", `bo-${crypto.randomUUID()}@example.com`);
    expect((await linkJoinThroughApi(bo, res.body.public_id, holding, "Bo")).res.status).toBe(201);
    await annLive.waitFor((r) => roomKinds(r).includes("discussion.member_joined"), 5000);

    const dee = new Device(servers.two.url);
    await dee.register("Dee", `dee-${crypto.randomUUID()}@example.com`);
    const key = await newMemberKey();
    const ask = { name: "Dee", joiner_key_id: key.keyId, joiner_public_key: key.publicKey, share: "c2hhcmU" };
    expect((await dee.post(ROOMS_API.requestJoin(res.body.public_id), ask)).status).toBe(201);
    await annLive.waitFor((r) => roomKinds(r).includes("discussion.join_requested"), 5000);
    annLive.close();
  });
});

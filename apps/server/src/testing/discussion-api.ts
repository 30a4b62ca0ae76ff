/**
 * Helpers the discussion tests share: people and discussions made through the API, the one 404 a non-member gets,
 * live-frame filters, and the three-user fixture of the message tests (each test file calls it on its own server).
 */
import {
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionDetails,
  type DiscussionMessage,
  type ServerLiveMessage,
} from "@daysync/shared";
import { expect } from "vitest";
import { addMember, createDiscussion } from "./discussion-factory.ts";
import { Device, type LiveClient, type TestServer, textMessage } from "./test-server.ts";

/** What every route answers to anyone who is not a member, whatever the reason. */
export const NO_SUCH_DISCUSSION = { error: { code: "not_found", message: "No such discussion." } };

let people = 0;

/** A signed-in device of a new user, with an email no other test uses. */
export async function person(server: Pick<TestServer, "url">, name: string) {
  const device = new Device(server.url);
  const email = `${name.toLowerCase()}${++people}@example.com`;
  const user = await device.register(name, email);
  return { device, user, email };
}

/** Creates a discussion through the API (expecting 201); the details its creator gets. */
export async function createThroughApi(device: Device, title = "Trip", displayName = "Ann") {
  const res = await device.post<DiscussionDetails>(DISCUSSIONS_API.list, { title, display_name: displayName });
  expect(res.status).toBe(201);
  return res.body;
}

export async function join(device: Device, publicId: string, displayName: string) {
  return device.post<DiscussionDetails>(DISCUSSIONS_API.join(publicId), { display_name: displayName });
}

export const readySeq = (received: ServerLiveMessage[]) => received.find((m) => m.type === "ready")?.seq;

/** The discussion.* events among the frames a live connection received. */
export const discussionEvents = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind.startsWith("discussion.") ? [m.event] : []));

export const messagesOf = (device: Device, id: string) =>
  device.get<{ discussion: unknown; messages: DiscussionMessage[] }>(DISCUSSIONS_API.messages(id));

/** A live connection that has received its ready frame. */
export async function ready(device: Device, since = 0): Promise<LiveClient> {
  const live = await device.live(since);
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return live;
}

/**
 * Alice, Bob and Carol registered on the server, Alice's device renamed to a name that must never reach another
 * member; `aliceAndBob()` makes a discussion of Alice (owner, "Ally") with Bob ("Bobby") as a member.
 */
export async function aliceBobAndCarol(server: TestServer) {
  const now = () => server.clock.now();
  const alice = new Device(server.url);
  const aliceUser = await alice.register("Alice Private", "alice-secret@example.com");
  const [aliceDevice] = (await alice.get<DevicesResponse>(DEVICES_API.list)).body.devices;
  await alice.request("PATCH", DEVICES_API.one(aliceDevice?.id ?? ""), { name: "Alice's hidden phone" });
  const bob = new Device(server.url);
  const bobUser = await bob.register("Bob Private", "bob-secret@example.com");
  const carol = new Device(server.url);
  const carolUser = await carol.register("Carol", "carol@example.com");

  async function aliceAndBob() {
    const discussion = await createDiscussion(server.db, { ownerId: aliceUser.id, ownerName: "Ally", now: now() });
    const bobMemberId = await addMember(server.db, discussion.id, bobUser.id, "Bobby", now());
    return { ...discussion, bobMemberId };
  }
  return { alice, aliceUser, bob, bobUser, carol, carolUser, aliceAndBob, now, say: (content: string) => textMessage(content, now()) };
}

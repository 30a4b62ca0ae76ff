/**
 * After sign-out, nothing more from that device: an upload whose bytes are still streaming when its session ends
 * (by itself, from another device, by "sign out all others", or on a process whose notice never reached this one)
 * answers 401 when its last byte arrives, and leaves no message, no file and nothing counted.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import {
  API,
  type DateMessages,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type ServerLiveMessage,
  type StorageResponse,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscussion } from "../../testing/discussion-factory.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { create, metadata, streamingPatch } from "../../testing/tus-client.ts";

let server: TestServer;
/** A second process on the same database whose notices do not reach `server` (no bus between them). */
let second: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  second = await startTestServer({ DATABASE_URL: server.databaseUrl }, { clock: server.clock });
});
afterAll(async () => {
  await second.close();
  await server.close();
});

const SIZE = 200_000;
const HALF = SIZE / 2;

let accounts = 0;
/** The uploading device and another device of the same account, which watches its live connection. */
async function twoDevices() {
  accounts += 1;
  const uploader = new Device(server.url);
  const user = await uploader.register("Late", `late${accounts}@example.com`);
  const other = new Device(server.url);
  await other.login(user.email);
  const uploaderId = (await uploader.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";
  return { uploader, other, user, uploaderId };
}

/** Resolves once the upload's file holds at least `bytes`: the PATCH is past every check made when it began. */
async function stored(uploadId: string, bytes: number) {
  const file = path.join(server.dataDir, "files", uploadId);
  const deadline = Date.now() + 3000;
  while (!existsSync(file) || statSync(file).size < bytes) {
    if (Date.now() > deadline) throw new Error("the first bytes never arrived");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const createdIds = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => {
    if (m.type !== "event") return [];
    if (m.event.kind === "message.created" || m.event.kind === "discussion.message.created") return [m.event.message.id];
    return [];
  });

/**
 * Starts an upload, sends half of it, signs the uploader out with `signOut`, sends the rest: it must be refused
 * with 401 and leave nothing. `discussionId`: into that discussion instead of the personal space.
 */
async function uploadAcrossSignOut(
  devices: Awaited<ReturnType<typeof twoDevices>>,
  signOut: () => Promise<{ status: number }>,
  discussionId?: string,
) {
  const { uploader, other } = devices;
  const live = await other.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  const data = randomBytes(SIZE);
  const meta = metadata("late.bin", server.clock.now(), crypto.randomUUID(), discussionId ? { discussion_id: discussionId } : {});
  const { res, location } = await create(uploader, SIZE, meta.header);
  expect(res.status).toBe(201);
  const uploadId = location.split("/").pop() ?? "";

  const patch = streamingPatch(uploader, location, 0, SIZE);
  await patch.send(data.subarray(0, HALF));
  await stored(uploadId, HALF);
  expect((await signOut()).status).toBeLessThan(300);
  const answer = await patch.finish(data.subarray(HALF));

  expect(answer.status).toBe(401);
  expect(JSON.parse(answer.body)).toEqual({ error: { code: "unauthenticated", message: "Please sign in to continue." } });
  if (discussionId) {
    const list = await other.get<{ messages: Array<{ id: string }> }>(DISCUSSIONS_API.messages(discussionId));
    expect(list.body.messages.map((m) => m.id)).not.toContain(meta.messageId);
  } else {
    expect((await other.get(API.message(meta.messageId))).status).toBe(404);
    expect((await other.get<{ days: DateMessages[] }>(API.days)).body.days).toEqual([]);
  }
  expect((await other.get<StorageResponse>(API.storage)).body.used).toBe(0);
  expect(existsSync(path.join(server.dataDir, "files", uploadId))).toBe(false);
  expect((await other.raw("GET", API.file(uploadId))).status).toBe(404);

  // Changes reach a live socket in order: once this one arrived, a message from the upload would have too.
  const after = textMessage("after the upload", server.clock.now());
  const send = discussionId ? DISCUSSIONS_API.messages(discussionId) : API.messages;
  expect((await other.post(send, after)).status).toBe(201);
  await live.waitFor((r) => createdIds(r).includes(after.id));
  expect(createdIds(live.received)).toEqual([after.id]);
  live.close();
}

describe("an upload streaming while its device is signed out", () => {
  it("answers 401 and makes no message when the device signs itself out", async () => {
    const devices = await twoDevices();
    // Its own sign-out, on another connection while the bytes still come.
    const sameCookie = new Device(server.url);
    sameCookie.cookie = devices.uploader.cookie;
    await uploadAcrossSignOut(devices, () => sameCookie.post(API.logout));
  });

  it("answers 401 and makes no message when another device signs it out", async () => {
    const devices = await twoDevices();
    await uploadAcrossSignOut(devices, () => devices.other.request("DELETE", DEVICES_API.one(devices.uploaderId)));
  });

  it("answers 401 and makes no message when another device signs out all others", async () => {
    const devices = await twoDevices();
    await uploadAcrossSignOut(devices, () => devices.other.post(DEVICES_API.signOutOthers));
  });

  it("answers 401 when the sign-out was on another process whose notice never came", async () => {
    const devices = await twoDevices();
    const elsewhere = new Device(second.url);
    await elsewhere.login(devices.user.email);
    await uploadAcrossSignOut(devices, () => elsewhere.request("DELETE", DEVICES_API.one(devices.uploaderId)));
  });

  it("answers 401 and adds nothing to a discussion", async () => {
    const devices = await twoDevices();
    const discussion = await createDiscussion(server.db, { ownerId: devices.user.id, ownerName: "Late", now: server.clock.now() });
    await uploadAcrossSignOut(devices, () => devices.other.request("DELETE", DEVICES_API.one(devices.uploaderId)), discussion.id);
  });
});

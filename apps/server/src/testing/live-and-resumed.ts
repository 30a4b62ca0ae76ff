/**
 * What the resume-equals-live tests share: an account with a device that stays live and one that resumes, the frames
 * each of them got through a change, and the changes' small steps made through the API.
 */
import {
  API,
  type DateMessages,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionDetails,
  KEYS_API,
  type ServerLiveMessage,
} from "@daysync/shared";
import { expect } from "vitest";
import { person, ready } from "./discussion-api.ts";
import { b64, keyed } from "./key-material.ts";
import { Device, type TestServer, textMessage } from "./test-server.ts";

/** The event frames among what a live connection received, as seq and event. */
export const eventFrames = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" ? [{ seq: m.seq, event: m.event }] : []));

export async function currentSeq(server: TestServer, userId: string): Promise<number> {
  const row = await server.db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.seq);
}

/** A user with a device that stays live and a second device that will resume; `other` for another account. */
export async function scene(server: TestServer) {
  const me = await person(server, "Mia");
  const laptop = new Device(server.url);
  await laptop.login(me.email);
  const other = await person(server, "Oto");
  return { ...me, laptop, other };
}
export type Scene = Awaited<ReturnType<typeof scene>>;

/**
 * Runs `change` while `live` is connected from the current seq, then resumes `resumer` from that same seq; both
 * frame lists once every change has arrived.
 */
export async function liveAndResumed(server: TestServer, userId: string, live: Device, resumer: Device, change: () => Promise<void>) {
  const from = await currentSeq(server, userId);
  const socket = await ready(live, from);
  await change();
  const to = await currentSeq(server, userId);
  expect(to).toBeGreaterThan(from);
  await socket.waitFor((r) => r.some((m) => m.type === "event" && m.seq === to));
  const resumed = await ready(resumer, from);
  socket.close();
  resumed.close();
  return { live: eventFrames(socket.received), replayed: eventFrames(resumed.received) };
}

export async function sendText(server: TestServer, device: Device, content: string) {
  const res = await device.post<{ message: { id: string }; day: DateMessages }>(API.messages, textMessage(content, server.clock.now()));
  expect(res.status).toBe(201);
  return res.body;
}

export async function deviceIdOf(device: Device): Promise<string> {
  const res = await device.get<DevicesResponse>(DEVICES_API.list);
  return res.body.devices.find((d) => d.current)?.id ?? "";
}

export async function discussionOf(owner: Device, title = "Trip") {
  const res = await owner.post<DiscussionDetails>(DISCUSSIONS_API.list, { title, display_name: "Owner" });
  expect(res.status).toBe(201);
  return res.body.discussion;
}

/** `keyedDevice` makes epoch 1 for itself; `locked` has a key but no wrap. */
export async function keyedAccount(keyedDevice: Device, locked: Device) {
  const key = await keyed(keyedDevice);
  await keyed(locked);
  const roster = { epoch: 1, key_id: key.keyId, public_key: key.publicKey, kind: "device", tag: b64(32) };
  const wrap = { epoch: 1, recipient_key_id: key.keyId, mode: "base", enc: b64(32), ciphertext: b64(48) };
  const res = await keyedDevice.post(KEYS_API.epochs, { epoch: 1, expected: null, reason: "first", wraps: [wrap], roster: [roster] });
  expect(res.status).toBe(201);
}

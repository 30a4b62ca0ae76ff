import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { API, type DateMessages, deletedMessagesPushSchema, type Message, PUSH_API, type User } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../admin.ts";
import { decryptPush, newSubscriptionKeys, type PushServiceDouble, startPushServiceDouble } from "../../testing/push-service-double.ts";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { metadata, uploadFile } from "../../testing/tus-client.ts";

type Sent = { message: Message; day: DateMessages };

let server: TestServer;
let pushService: PushServiceDouble;
beforeAll(async () => {
  server = await startTestServer();
  pushService = await startPushServiceDouble();
});
afterAll(async () => {
  await pushService.close();
  await server.close();
});

const storedFiles = () => readdirSync(path.join(server.dataDir, "files")).filter((f) => !f.endsWith(".json"));

/** One user on two devices, the second listening live from now. */
async function twoDevices(name: string) {
  const email = `${name.toLowerCase()}@example.com`;
  const phone = new Device(server.url);
  await phone.register(name, email);
  const laptop = new Device(server.url);
  await laptop.login(email);
  const live = await laptop.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return { phone, laptop, live };
}

async function send(device: Device, content: string): Promise<Sent> {
  const res = await device.post<Sent>(API.messages, textMessage(content, server.clock.now()));
  expect(res.status).toBe(201);
  server.clock.advance(1000);
  return res.body;
}

async function sendFile(device: Device, filename: string): Promise<{ messageId: string; uploadId: string }> {
  const meta = metadata(filename, server.clock.now());
  const uploadId = await uploadFile(device, new TextEncoder().encode(`bytes of ${filename}`), meta.header);
  server.clock.advance(1000);
  return { messageId: meta.messageId, uploadId };
}

const dayOf = async (device: Device, dayId: string) =>
  (await device.get<{ days: DateMessages[] }>(API.days)).body.days.find((d) => d.id === dayId);

function deletedEvent(live: LiveClient, id: string) {
  return live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "messages.deleted" && m.event.ids.includes(id)));
}

describe("deleting a message", () => {
  it("removes it for good, recounts its day from what remains and tells the user's other devices at once", async () => {
    const { phone, live } = await twoDevices("Dee");
    const first = await send(phone, "first");
    await send(phone, "second");
    const last = await send(phone, "a secret to take back");

    const res = await phone.request("DELETE", API.message(last.message.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 1 });

    expect((await phone.get(API.message(last.message.id))).status).toBe(404);
    const listed = await phone.get<{ messages: Message[] }>(API.dayMessages(first.day.id));
    expect(listed.body.messages.map((m) => m.content)).toEqual(["first", "second"]);
    expect(await dayOf(phone, first.day.id)).toMatchObject({ count_messages: 2, last_message: "second" });
    const row = await server.db.selectFrom("messages").select("id").where("id", "=", last.message.id).executeTakeFirst();
    expect(row).toBeUndefined();

    await deletedEvent(live, last.message.id);
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "day.upserted"));
    const dayEvent = live.events().find((e) => e.event.kind === "day.upserted");
    expect(dayEvent?.event).toMatchObject({ kind: "day.upserted", day: { id: first.day.id, count_messages: 2, last_message: "second" } });
    live.close();
    // A device catching up from the start replays no trace of it.
    const replay = await phone.live(0);
    await replay.waitFor((r) => r.some((m) => m.type === "ready"));
    expect(JSON.stringify(replay.received)).toContain("second");
    expect(JSON.stringify(replay.received)).not.toContain("a secret to take back");
    replay.close();
  });

  it("recounts the day of a user whose messages never expire", async () => {
    const { phone, live } = await twoDevices("Una");
    expect((await runAdmin(["plan", "set", "una@example.com", "premium"], server.env)).code).toBe(0);
    const unlimited = await phone.request<{ user: User }>("PUT", API.retention, { max_message_duration: null });
    expect(unlimited.body.user.max_message_duration).toBeNull();
    const kept = await send(phone, "kept");
    const gone = await send(phone, "gone");
    expect((await phone.request("DELETE", API.message(gone.message.id))).body).toEqual({ deleted: 1 });
    expect(await dayOf(phone, kept.day.id)).toMatchObject({ count_messages: 1, last_message: "kept" });
    // The stored count stays exact: the next message counts from it.
    const next = await send(phone, "next");
    expect(next.day).toMatchObject({ count_messages: 2, last_message: "next" });
    live.close();
  });

  it("deletes a file message's bytes and its download", async () => {
    const { phone, live } = await twoDevices("Fil");
    const { messageId, uploadId } = await sendFile(phone, "notes.txt");
    expect(storedFiles()).toContain(uploadId);
    expect((await phone.raw("GET", API.file(uploadId))).status).toBe(200);

    expect((await phone.request("DELETE", API.message(messageId))).body).toEqual({ deleted: 1 });
    expect(storedFiles()).not.toContain(uploadId);
    expect((await phone.raw("GET", API.file(uploadId))).status).toBe(404);
    const upload = await server.db.selectFrom("uploads").select("id").where("id", "=", uploadId).executeTakeFirst();
    expect(upload).toBeUndefined();
    await deletedEvent(live, messageId);
    live.close();
  });

  it("is 404 for another user's message, as for an unknown id; 401 without a session; 400 for a bad id", async () => {
    const { phone, live } = await twoDevices("Own");
    const other = new Device(server.url);
    await other.register("Eve", "eve@example.com");
    const mine = await send(phone, "not yours");

    const foreign = await other.request("DELETE", API.message(mine.message.id));
    const unknown = await other.request("DELETE", API.message(randomUUID()));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body).toEqual({ error: { code: "not_found", message: "No such message." } });
    expect((await new Device(server.url).request("DELETE", API.message(mine.message.id))).status).toBe(401);
    expect((await phone.request("DELETE", API.message("nope"))).status).toBe(400);

    expect((await phone.get(API.message(mine.message.id))).status).toBe(200);
    // Deleting twice (a retry whose answer was lost) finds nothing the second time.
    expect((await phone.request("DELETE", API.message(mine.message.id))).status).toBe(200);
    expect((await phone.request("DELETE", API.message(mine.message.id))).status).toBe(404);
    live.close();
  });

  it("refuses a retried send of a deleted message: it never comes back", async () => {
    const { phone, live } = await twoDevices("Ret");
    const input = textMessage("sent, deleted, retried", server.clock.now());
    const sent = await phone.post<Sent>(API.messages, input);
    await phone.request("DELETE", API.message(input.id));

    const retried = await phone.post(API.messages, input);
    expect(retried.status).toBe(410);
    expect(retried.body).toEqual({ error: { code: "expired", message: "This message has expired or was deleted." } });
    const listed = await phone.get<{ messages: Message[] }>(API.dayMessages(sent.body.day.id));
    expect(listed.body.messages).toEqual([]);
    expect(await dayOf(phone, sent.body.day.id)).toMatchObject({ count_messages: 0, last_message: "" });
    live.close();
  });

  it("closes the notification of the deleted message on the user's other devices", async () => {
    const { phone, laptop, live } = await twoDevices("Nia");
    const keys = newSubscriptionKeys();
    const subscribed = await laptop.post(PUSH_API.subscriptions, {
      endpoint: `${pushService.url}/push/nia`,
      expirationTime: null,
      keys: keys.json,
    });
    expect(subscribed.status).toBe(201);
    const atStart = pushService.received.length;
    const sent = await send(phone, "notified, then deleted");
    await pushService.waitFor(atStart + 1);
    const before = pushService.received.length;
    await phone.request("DELETE", API.message(sent.message.id));
    await pushService.waitFor(before + 1);
    const push = pushService.received.slice(before).find((r) => r.path === "/push/nia");
    if (!push) throw new Error("no push");
    const payload = deletedMessagesPushSchema.parse(JSON.parse(decryptPush(push.body, keys).toString("utf8")));
    expect(payload).toEqual({ kind: "messages.deleted", message_ids: [sent.message.id], day_ids: [] });
    live.close();
  });
});

describe("clearing a day", () => {
  it("deletes every message of the day, files included, keeps the day empty and tells the other devices", async () => {
    const { phone, live } = await twoDevices("Cleo");
    const a = await send(phone, "one");
    const b = await send(phone, "two");
    const file = await sendFile(phone, "photo.bin");
    expect(storedFiles()).toContain(file.uploadId);

    const eve = new Device(server.url);
    await eve.register("Eve", "eve2@example.com");
    expect((await eve.request("DELETE", API.dayMessages(a.day.id))).status).toBe(404);
    expect((await eve.request("DELETE", API.dayMessages(a.day.id))).body).toEqual(
      (await eve.request("DELETE", API.dayMessages(randomUUID()))).body,
    );
    expect((await new Device(server.url).request("DELETE", API.dayMessages(a.day.id))).status).toBe(401);
    expect(await dayOf(phone, a.day.id)).toMatchObject({ count_messages: 3 });

    const res = await phone.request("DELETE", API.dayMessages(a.day.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 3 });
    const listed = await phone.get<{ messages: Message[] }>(API.dayMessages(a.day.id));
    expect(listed.body.messages).toEqual([]);
    expect(await dayOf(phone, a.day.id)).toMatchObject({ count_messages: 0, last_message: "", last_message_type: "" });
    expect(storedFiles()).not.toContain(file.uploadId);

    await live.waitFor((r) =>
      r.some(
        (m) =>
          m.type === "event" &&
          m.event.kind === "messages.deleted" &&
          [a.message.id, b.message.id, file.messageId].every((id) => m.event.kind === "messages.deleted" && m.event.ids.includes(id)),
      ),
    );
    expect((await phone.request("DELETE", API.dayMessages(a.day.id))).body).toEqual({ deleted: 0 });
    live.close();
  });

  it("replays the deletion to a device that was away", async () => {
    const { phone, laptop, live } = await twoDevices("Away");
    live.close();
    const sent = await send(phone, "deleted while away");
    const away = await laptop.live();
    await away.waitFor((r) => r.some((m) => m.type === "ready"));
    const since = Math.max(...away.received.map((m) => ("seq" in m ? m.seq : 0)));
    away.close();
    await phone.request("DELETE", API.dayMessages(sent.day.id));
    const back = await laptop.live(since);
    await deletedEvent(back, sent.message.id);
    back.close();
  });
});

/**
 * Messages sealed on the device (docs/protocol/encryption.md, "Sealed messages"), as the server sees them: opaque sealed values it checks
 * only for shape and length, stored and served with their epoch, let in only under the account's current epoch and
 * not while a rotation is due, left out of the server's search, and paged through for the devices' own search. Once
 * the account has a key, text in clear is refused (`encryption_required`).
 */
import { randomBytes } from "node:crypto";
import {
  API,
  type DateMessages,
  MAX_MESSAGE_LENGTH,
  MESSAGES_PAGE_MAX,
  type Message,
  type SearchResult,
  sealedValueMaxLength,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Sent = { message: Message; day: DateMessages };
type Page = { messages: Message[]; next: string | null };

/** A value shaped like a sealed value of `epoch` (the server cannot tell it from one). */
const sealed = (epoch: number, bytes = 40) => `v1.${epoch}.${randomBytes(bytes).toString("base64url")}`;

/** A sealed text message as a device sends it. */
function sealedMessage(epoch: number, now: number) {
  const { id, date, time } = textMessage("unused", now);
  return { id, date, time, epoch, content: sealed(epoch), preview: sealed(epoch) };
}

/** The account's key state, as its devices' key routes leave it (those are tested in `modules/keys`). */
async function setKeyState(userId: string, state: { epoch: number | null; rotationDue?: boolean }) {
  await server.db
    .updateTable("users")
    .set({ key_epoch: state.epoch, key_rotation_due_at: state.rotationDue ? server.clock.now() : null })
    .where("id", "=", userId)
    .execute();
}

async function keyedPerson(name: string, epoch = 1) {
  const who = await person(server, name);
  await setKeyState(who.user.id, { epoch });
  return who;
}

const daysOf = async (device: Device) => (await device.get<{ days: DateMessages[] }>(API.days)).body.days;

describe("a sealed send", () => {
  it("is stored and served as sent, with its epoch; the day's summary is its sealed preview", async () => {
    const { device } = await keyedPerson("Sia");
    const input = sealedMessage(1, server.clock.now());
    const res = await device.post<Sent>(API.messages, input);
    expect(res.status).toBe(201);
    const served = { id: input.id, type: "text", content: input.content, preview: input.preview, epoch: 1, filename: "" };
    expect(res.body.message).toMatchObject(served);
    expect(res.body.day).toMatchObject({
      last_message: input.preview,
      last_message_epoch: 1,
      last_message_id: input.id,
      last_message_device_id: res.body.message.device?.id,
      count_messages: 1,
    });

    expect((await device.get<{ messages: Message[] }>(API.dayMessages(res.body.day.id))).body.messages).toEqual([res.body.message]);
    expect((await device.get<Sent>(API.message(input.id))).body.message).toEqual(res.body.message);
    expect(await daysOf(device)).toEqual([res.body.day]);

    // Sent again, the stored one answers.
    expect(await device.post<Sent>(API.messages, input)).toMatchObject({ status: 200, body: { message: res.body.message } });
  });

  it("refuses text in clear once the account has a key; what was kept in clear from before still shows", async () => {
    const who = await person(server, "Ola");
    const { device } = who;
    const before = await device.post<Sent>(API.messages, textMessage("from before the key", server.clock.now()));
    await setKeyState(who.user.id, { epoch: 1 });

    const clear = textMessage("in clear", server.clock.now());
    expect(await device.post(API.messages, clear)).toMatchObject({ status: 409, body: { error: { code: "encryption_required" } } });
    expect((await device.get<Page>(API.messages)).body.messages.map((m) => m.id)).toEqual([before.body.message.id]);

    const sealedOne = await device.post<Sent>(API.messages, sealedMessage(1, server.clock.now()));
    expect(sealedOne.body.day).toMatchObject({ last_message_epoch: 1, count_messages: 2 });
    expect((await device.request("DELETE", API.message(sealedOne.body.message.id))).status).toBe(200);
    const [day] = await daysOf(device);
    expect(day).toMatchObject({ last_message: "from before the key", count_messages: 1 });
    expect(day).not.toHaveProperty("last_message_epoch");
  });

  it("goes in only under the account's current epoch, and not while a rotation is due; nothing is stored then", async () => {
    const { device, user } = await person(server, "Rui");
    const refused = async (input: ReturnType<typeof sealedMessage>, code: string) => {
      expect(await device.post(API.messages, input)).toMatchObject({ status: 409, body: { error: { code } } });
      expect((await device.get(API.message(input.id))).status).toBe(404);
    };
    // No epoch yet.
    await refused(sealedMessage(1, server.clock.now()), "key_epoch_changed");
    await setKeyState(user.id, { epoch: 2 });
    await refused(sealedMessage(1, server.clock.now()), "key_epoch_changed");
    await refused(sealedMessage(3, server.clock.now()), "key_epoch_changed");
    await setKeyState(user.id, { epoch: 2, rotationDue: true });
    await refused(sealedMessage(2, server.clock.now()), "key_rotation_due");
    expect(await daysOf(device)).toEqual([]);

    // The same message, sealed again under the next epoch, goes in under its id.
    await setKeyState(user.id, { epoch: 3 });
    const again = { ...sealedMessage(3, server.clock.now()) };
    expect((await device.post(API.messages, again)).status).toBe(201);
  });

  it("answers 400 naming the field for what is not a sealed message", async () => {
    const { device } = await keyedPerson("Val");
    const now = server.clock.now();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...sealedMessage(1, now), content: "plain text" }, "content"],
      [{ ...sealedMessage(1, now), content: sealed(2) }, "epoch"],
      [{ ...sealedMessage(1, now), preview: undefined }, "preview"],
      [{ ...sealedMessage(1, now), epoch: "1" }, "epoch"],
      [{ ...sealedMessage(1, now), epoch: 0 }, "epoch"],
      [{ ...sealedMessage(1, now), content: `v1.1.${"A".repeat(sealedValueMaxLength(MAX_MESSAGE_LENGTH))}` }, "content"],
      [{ ...sealedMessage(1, now), id: "not-a-uuid" }, "id"],
    ];
    for (const [body, field] of cases) {
      expect(await device.post(API.messages, body)).toMatchObject({ status: 400, body: { error: { code: "validation", field } } });
    }
    expect(await daysOf(device)).toEqual([]);
  });
});

describe("search and paging", () => {
  it("the server's search finds only messages in clear", async () => {
    const who = await person(server, "Noa");
    const { device } = who;
    await device.post(API.messages, textMessage("plain words", server.clock.now()));
    await setKeyState(who.user.id, { epoch: 1 });
    const input = sealedMessage(1, server.clock.now());
    await device.post(API.messages, input);
    const inside = input.content.slice(10, 20);
    expect((await device.get<{ results: SearchResult[] }>(`${API.search}?q=${encodeURIComponent(inside)}`)).body.results).toEqual([]);
    const found = (await device.get<{ results: SearchResult[] }>(`${API.search}?q=plain`)).body.results;
    expect(found.map((r) => r.message.content)).toEqual(["plain words"]);
  });

  it("pages through the person's live messages, newest first, and never another's", async () => {
    const who = await person(server, "Pia");
    const { device } = who;
    const sent: string[] = [];
    // Two kept in clear from before the account had a key, then three sealed.
    for (let i = 0; i < 5; i++) {
      server.clock.advance(1000);
      if (i === 2) await setKeyState(who.user.id, { epoch: 1 });
      const res = await device.post<Sent>(
        API.messages,
        i >= 2 ? sealedMessage(1, server.clock.now()) : textMessage(`m${i}`, server.clock.now()),
      );
      sent.push(res.body.message.id);
    }
    const newestFirst = [...sent].reverse();
    const first = await device.get<Page>(`${API.messages}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.messages[1]).toMatchObject({ epoch: 1 });
    const second = await device.get<Page>(`${API.messages}?limit=2&before=${first.body.next}`);
    expect(second.body.messages.map((m) => m.id)).toEqual(newestFirst.slice(2, 4));
    const last = await device.get<Page>(`${API.messages}?limit=2&before=${second.body.next}`);
    expect(last.body).toEqual({ messages: [expect.objectContaining({ id: newestFirst[4] })], next: null });
    expect((await device.get<Page>(API.messages)).body.messages).toHaveLength(5);

    const other = await person(server, "Quin");
    expect((await other.device.get<Page>(API.messages)).body).toEqual({ messages: [], next: null });
    expect(await other.device.get(`${API.messages}?before=${sent[0]}`)).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    expect((await new Device(server.url).get(API.messages)).status).toBe(401);
  });

  it("answers 400 for a bad page", async () => {
    const { device } = await keyedPerson("Ren");
    for (const [query, field] of [
      [`limit=${MESSAGES_PAGE_MAX + 1}`, "limit"],
      ["limit=0", "limit"],
      ["limit=two", "limit"],
      ["before=nope", "before"],
    ]) {
      expect(await device.get(`${API.messages}?${query}`)).toMatchObject({ status: 400, body: { error: { code: "validation", field } } });
    }
  });
});

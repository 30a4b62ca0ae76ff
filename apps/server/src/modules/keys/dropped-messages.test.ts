/**
 * Issue 41, gaps shown: a hostile server that drops or holds back one of a device's messages, against the real
 * server and the real key code (docs/protocol/encryption.md, "Sealed messages"). The reading device says what did
 * not arrive, in the words the person sees; a message its person deleted, or one that expired, is no gap.
 */
import { API, DELETION_NOTES_API, DEVICES_API, deletionNotesSchema, type Message, responseSchemas } from "@daysync/shared";
import {
  ArrivalWatch,
  gapsOfDay,
  makeRecoveryCode,
  memorySendNumbers,
  numberedOf,
  openMessage,
  type Sealer,
  SendNumbering,
  sealDeletionNote,
  sealerOf,
  sealTextMessage,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KeyDevice, keyedAccount, keysOf } from "../../testing/key-devices.ts";
import { startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const MIN = 60_000;

/** A laptop that numbers what it sends, and a phone of the same account that reads; both hold epoch 1. */
async function laptopAndPhone(name: string) {
  const { keyed: laptop, signIn, user } = await keyedAccount(server, name);
  const code = await makeRecoveryCode();
  await laptop.makeCode(code);
  const phone = await signIn();
  await phone.unlock(code);
  expect((await phone.keys.sync()).state).toBe("ready");
  const session = (await keysOf(laptop.device)).session_id;
  expect((await laptop.device.request("PATCH", DEVICES_API.one(session), { name: "Laptop" })).status).toBe(200);
  const status = await laptop.keys.sync();
  const plain = sealerOf(user.id, status);
  if (!plain) throw new Error("the laptop cannot seal");
  const sealer: Sealer = { ...plain, numbering: new SendNumbering(laptop.held().keyId, memorySendNumbers()) };

  const sent: Message[] = [];
  const send = async (content: string) => {
    const body = await sealTextMessage(sealer, textMessage(content, server.clock.now()));
    const res = await laptop.device.post(API.messages, body);
    expect(res.status).toBe(201);
    const { message } = responseSchemas.message.parse(res.body);
    await sealer.numbering?.stored(message.id);
    sent.push(message);
    return message;
  };
  return { laptop, phone, user, sealer, send, sent };
}

/** What the phone shows of the day: the gaps' words, each with the text of the message it stands before. */
async function phoneShows(phone: KeyDevice, userId: string, dayId: string, date: string) {
  const day = responseSchemas.dayMessages.parse((await phone.device.get(`/api/days/${dayId}/messages`)).body);
  const epochs = phone.held().epochs;
  const opened = await Promise.all(day.messages.map(async (m) => ({ message: m, opened: await openMessage(userId, epochs, m) })));
  const numbered = opened.flatMap(({ message, opened }) => numberedOf(message, opened) ?? []);
  const notes = deletionNotesSchema.parse(
    (await phone.device.get(`${DELETION_NOTES_API.notes}?date=${encodeURIComponent(date)}`)).body,
  ).notes;
  const gaps = await gapsOfDay(userId, epochs, { date, numbered, notes }, { retentionMinutes: 15, now: server.clock.now() });
  const textOf = (id: string) => opened.find((o) => o.message.id === id)?.opened;
  return gaps.map((gap) => {
    const before = textOf(gap.before);
    return `${gap.notice} (before "${before?.state === "opened" ? before.text : "?"}")`;
  });
}

describe("a hostile server against a device's numbered messages", () => {
  it("drops one of the laptop's messages: the phone says 1 message from Laptop did not arrive, where it was", async () => {
    const { phone, user, send } = await laptopAndPhone("Dropped");
    await send("one");
    const dropped = await send("two");
    const three = await send("three");
    // The operator deletes the row, as if it had never been sent: no deletion, no note.
    await server.db.deleteFrom("messages").where("id", "=", dropped.id).execute();

    expect(await phoneShows(phone, user.id, three.date_message_id, three.date)).toEqual([
      '1 message from Laptop did not arrive (before "three")',
    ]);
  });

  it("drops two in a row: 2 messages from Laptop did not arrive", async () => {
    const { phone, user, send } = await laptopAndPhone("Dropped2");
    await send("one");
    const two = await send("two");
    const three = await send("three");
    const four = await send("four");
    await server.db.deleteFrom("messages").where("id", "in", [two.id, three.id]).execute();

    expect(await phoneShows(phone, user.id, four.date_message_id, four.date)).toEqual([
      '2 messages from Laptop did not arrive (before "four")',
    ]);
  });

  it("holds one back and delivers it after a newer one: the watching device says so", async () => {
    const { phone, user, send } = await laptopAndPhone("Reordered");
    const sent = [await send("one"), await send("two"), await send("three")];
    const [one, two, three] = sent;
    if (!one || !two || !three) throw new Error("not sent");
    const watch = new ArrivalWatch();
    const said: string[] = [];
    // The live order the server chose: one, three, two.
    for (const message of [one, three, two]) {
      const numbered = numberedOf(message, await openMessage(user.id, phone.held().epochs, message));
      if (!numbered) throw new Error("not numbered");
      said.push(...watch.arrived(message.date, numbered));
    }
    expect(said).toEqual(["1 message from Laptop did not arrive", "A message from Laptop arrived after a newer one"]);
  });

  it("a message the person deleted (its sealed note left first) is no gap; a note moved to another date counts for nothing", async () => {
    const { laptop, phone, user, sealer, send } = await laptopAndPhone("Deleted");
    await send("one");
    const two = await send("two");
    const three = await send("three");
    const opened = numberedOf(two, await openMessage(user.id, laptop.held().epochs, two));
    if (!opened) throw new Error("not numbered");
    const id = crypto.randomUUID();
    const note = await sealDeletionNote(sealer, { id, date: two.date, deleted: [opened.number] });
    expect((await laptop.device.post(DELETION_NOTES_API.notes, { id, date: two.date, note })).status).toBe(201);
    expect((await laptop.device.request("DELETE", `/api/messages/${two.id}`)).status).toBe(200);
    expect(await phoneShows(phone, user.id, three.date_message_id, three.date)).toEqual([]);

    // The server moves the note to another date: it no longer opens there, and here it is gone.
    await server.db.updateTable("deletion_notes").set({ date: "1/1/2020" }).where("id", "=", id).execute();
    expect(await phoneShows(phone, user.id, three.date_message_id, three.date)).toEqual([
      '1 message from Laptop did not arrive (before "three")',
    ]);
  });

  it("messages that expired are no gap", async () => {
    const { phone, user, send } = await laptopAndPhone("Expired");
    await send("one");
    await send("two");
    server.clock.advance(10 * MIN);
    await send("three");
    const four = await send("four");
    server.clock.advance(6 * MIN);
    await server.sweeper.sweep();
    const left = responseSchemas.dayMessages.parse((await phone.device.get(`/api/days/${four.date_message_id}/messages`)).body);
    expect(left.messages).toHaveLength(2);
    expect(await phoneShows(phone, user.id, four.date_message_id, four.date)).toEqual([]);
  });

  it("refuses a note that is not sealed, with a 400 naming the problem", async () => {
    const { laptop } = await laptopAndPhone("BadNote");
    const res = await laptop.device.post(DELETION_NOTES_API.notes, { id: crypto.randomUUID(), date: "12/3/2026", note: "deleted 2" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("note must be a sealed value");
  });
});

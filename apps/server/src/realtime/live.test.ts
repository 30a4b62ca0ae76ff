import { API, type ServerLiveMessage } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const readySeq = (received: ServerLiveMessage[]) => received.find((m) => m.type === "ready")?.seq;
const createdContents = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message.content] : []));

describe("live sync", () => {
  it("pushes a new message and its day to every device of the user, and to no one else", async () => {
    const phone = new Device(server.url);
    await phone.register("Lin", "lin@example.com");
    const laptop = new Device(server.url);
    await laptop.login("lin@example.com");
    const stranger = new Device(server.url);
    await stranger.register("Sam", "sam@example.com");

    const laptopLive = await laptop.live();
    const phoneLive = await phone.live();
    const strangerLive = await stranger.live();
    for (const l of [laptopLive, phoneLive, strangerLive]) await l.waitFor((r) => readySeq(r) !== undefined);

    await phone.post(API.messages, textMessage("copied on the phone", server.clock.now()));
    await laptopLive.waitFor((r) => createdContents(r).includes("copied on the phone"), 1000);
    await phoneLive.waitFor((r) => createdContents(r).includes("copied on the phone"), 1000);
    // Replayed from 0, the laptop also hears of its own sign-in; then one event for the message, carrying its day.
    const kinds = laptopLive.events().map((e) => e.event.kind);
    expect(kinds).toEqual(["device.signed_in", "message.created"]);
    const seqs = laptopLive.events().map((e) => e.seq);
    expect(seqs).toEqual([1, 2]);
    const created = laptopLive.events()[1]?.event;
    expect(created?.kind === "message.created" && created.day).toMatchObject({ count_messages: 1, last_message: "copied on the phone" });
    // The sending device hears it too: its other tabs share the session and learn of it only this way.
    expect(phoneLive.events().map((e) => e.event)).toContainEqual(created);

    await new Promise((r) => setTimeout(r, 200));
    expect(strangerLive.events()).toEqual([]);
    for (const l of [laptopLive, phoneLive, strangerLive]) l.close();
  });

  it("replays, in order, what a device missed while it was away", async () => {
    const a = new Device(server.url);
    await a.register("Ria", "ria@example.com");
    const b = new Device(server.url);
    await b.login("ria@example.com");

    const first = await b.live();
    await first.waitFor((r) => readySeq(r) !== undefined);
    await a.post(API.messages, textMessage("before the drop", server.clock.now()));
    await first.waitFor((r) => createdContents(r).includes("before the drop"));
    const lastSeen = Math.max(...first.events().map((e) => e.seq));
    first.close();
    await first.waitForClose();

    for (const text of ["while away 1", "while away 2", "while away 3"]) await a.post(API.messages, textMessage(text, server.clock.now()));

    const again = await b.live(lastSeen);
    await again.waitFor((r) => readySeq(r) !== undefined);
    expect(createdContents(again.received)).toEqual(["while away 1", "while away 2", "while away 3"]);
    // One change per message, each replayed with its day as it is now.
    expect(again.events().map((e) => e.event.kind)).toEqual(["message.created", "message.created", "message.created"]);
    const replayedDay = again.events()[0]?.event;
    expect(replayedDay?.kind === "message.created" && replayedDay.day.count_messages).toBe(4);
    const seqs = again.events().map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(seqs[0]).toBe(lastSeen + 1);
    expect(readySeq(again.received)).toBe(seqs.at(-1));

    // And it continues live after the replay.
    await a.post(API.messages, textMessage("after resume", server.clock.now()));
    await again.waitFor((r) => createdContents(r).includes("after resume"));
    again.close();
  });

  it("tells a device that claims to be ahead of the server to refetch", async () => {
    const d = new Device(server.url);
    await d.register("Zed", "zed@example.com");
    const live = await d.live(999);
    await live.waitFor((r) => r.some((m) => m.type === "reset"));
    expect(live.received[0]).toEqual({ type: "reset", seq: 0 });
    live.close();
  });

  it("answers ping with pong, and closes on a message it does not understand", async () => {
    const d = new Device(server.url);
    await d.register("Pia", "pia@example.com");
    const live = await d.live();
    live.socket.send(JSON.stringify({ type: "ping" }));
    await live.waitFor((r) => r.some((m) => m.type === "pong"));
    live.socket.send("not json");
    expect(await live.waitForClose()).toBe(1007);
  });

  it("refuses a live connection without a session", async () => {
    await expect(new Device(server.url).live()).rejects.toThrow("live refused: 401");
  });

  it("closes a device's live connection when it signs out", async () => {
    const d = new Device(server.url);
    await d.register("Out", "out@example.com");
    const live = await d.live();
    await live.waitFor((r) => readySeq(r) !== undefined);
    await d.post(API.logout);
    expect(await live.waitForClose()).toBe(4403);
  });
});

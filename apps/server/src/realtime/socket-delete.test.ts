/**
 * Deleting over the live socket (issue 47): a `delete` frame goes where `DELETE /api/messages/:id` goes. One deletion
 * whichever road it took, and a refusal answered as a frame with the HTTP answer's status and body.
 */
import { randomUUID } from "node:crypto";
import { API, type DateMessages, DISCUSSIONS_API, type LiveEvent, type Message } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteFrame, readyLive } from "../testing/socket-frames.ts";
import { Device, type LiveClient, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function signedIn(name: string) {
  const device = new Device(server.url);
  const email = `${name.toLowerCase()}-${crypto.randomUUID()}@example.com`;
  await device.register(name, email);
  return { device, email };
}

/** A person signed in on two devices: the one that deletes, and a laptop that watches. */
async function signedInWithLaptop(name: string) {
  const { device, email } = await signedIn(name);
  const laptop = new Device(server.url);
  await laptop.login(email);
  return { device, laptop };
}

async function sent(device: Device, content: string): Promise<{ message: Message; day: DateMessages }> {
  const res = await device.post<{ message: Message; day: DateMessages }>(API.messages, textMessage(content, server.clock.now()));
  expect(res.status).toBe(201);
  server.clock.advance(1000);
  return res.body;
}

/** The events that followed the deletion of `id`: its `messages.deleted` and what came after it. */
function eventsFromDeletionOf(live: LiveClient, id: string): LiveEvent[] {
  const events = live.events().map((e) => e.event);
  const at = events.findIndex((e) => e.kind === "messages.deleted" && e.ids.includes(id));
  return at < 0 ? [] : events.slice(at);
}

const deletionsOf = (live: LiveClient, id: string) =>
  live.events().filter((e) => e.event.kind === "messages.deleted" && e.event.ids.includes(id)).length;

describe("a delete frame on the live socket", () => {
  it("deletes the message, answers what the HTTP deletion answers, and the other device hears what HTTP tells it", async () => {
    const { device, laptop } = await signedInWithLaptop("Della");
    const byHttp = await sent(device, "deleted over HTTP");
    const bySocket = await sent(device, "deleted over the socket");
    await sent(device, "kept");
    const watching = await readyLive(laptop);
    const live = await readyLive(device);

    expect((await device.request("DELETE", API.message(byHttp.message.id))).body).toEqual({ deleted: 1 });
    await watching.waitFor(() => eventsFromDeletionOf(watching, byHttp.message.id).some((e) => e.kind === "day.upserted"));
    const afterHttp = eventsFromDeletionOf(watching, byHttp.message.id);

    expect(await deleteFrame(live, bySocket.message.id)).toEqual({ type: "deleted", ref: expect.any(String), deleted: 1 });
    await watching.waitFor(() => eventsFromDeletionOf(watching, bySocket.message.id).some((e) => e.kind === "day.upserted"));
    const afterSocket = eventsFromDeletionOf(watching, bySocket.message.id);
    // The same events, save for the id and the day's summary after each.
    expect(afterSocket[0]).toEqual({ kind: "messages.deleted", ids: [bySocket.message.id] });
    expect(afterSocket.map((e) => e.kind)).toEqual(afterHttp.slice(0, afterSocket.length).map((e) => e.kind));
    expect(afterSocket[1]).toMatchObject({ kind: "day.upserted", day: { id: bySocket.day.id, count_messages: 1, last_message: "kept" } });
    // The device that deleted hears it too, as its other tabs learn of it only this way.
    await live.waitFor(() => deletionsOf(live, bySocket.message.id) === 1);

    expect((await device.get(API.message(bySocket.message.id))).status).toBe(404);
    const row = await server.db.selectFrom("messages").select("id").where("id", "=", bySocket.message.id).executeTakeFirst();
    expect(row).toBeUndefined();
    live.close();
    watching.close();
  });

  it("answers a foreign id and an unknown one with the HTTP 404's status and body, and the socket stays open", async () => {
    const { device } = await signedIn("Fern");
    const { device: other } = await signedIn("Eve");
    const theirs = await sent(other, "not yours");
    const mine = await sent(device, "mine");
    const live = await readyLive(device);

    for (const id of [theirs.message.id, randomUUID()]) {
      const http = await device.request("DELETE", API.message(id));
      expect(http.status).toBe(404);
      expect(http.body).toEqual({ error: { code: "not_found", message: "No such message." } });
      expect(await deleteFrame(live, id)).toEqual({ type: "delete_failed", ref: expect.any(String), status: 404, ...http.body });
    }
    expect((await other.get(API.message(theirs.message.id))).status).toBe(200);
    expect(await deleteFrame(live, mine.message.id)).toMatchObject({ type: "deleted", deleted: 1 });
    live.close();
  });

  it("leaves a discussion's messages to their own HTTP route: the frame answers 404 as DELETE /api/messages/:id does", async () => {
    const { device } = await signedIn("Dora");
    const created = await device.post<{ discussion: { id: string } }>(DISCUSSIONS_API.list, { title: "Plans", display_name: "Dora" });
    expect(created.status).toBe(201);
    const discussionId = created.body.discussion.id;
    const said = textMessage("said in a discussion", server.clock.now());
    expect((await device.post(DISCUSSIONS_API.messages(discussionId), said)).status).toBe(201);
    const live = await readyLive(device);
    const http = await device.request("DELETE", API.message(said.id));
    expect(http.status).toBe(404);
    expect(await deleteFrame(live, said.id)).toEqual({ type: "delete_failed", ref: expect.any(String), status: 404, ...http.body });
    const listed = await device.get<{ messages: Message[] }>(DISCUSSIONS_API.messages(discussionId));
    expect(listed.body.messages.map((m) => m.id)).toEqual([said.id]);
    live.close();
  });

  it.each([
    ["an id that is not a UUID", "nope"],
    ["a number", 42],
    ["null", null],
    ["an empty id", ""],
  ])("refuses %s with a 400 naming the id, as HTTP does, and the socket stays open", async (_label, id) => {
    const { device } = await signedIn("Bea");
    const mine = await sent(device, "still deletable");
    const live = await readyLive(device);
    const http = await device.request("DELETE", API.message("nope"));
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ error: { code: "validation", field: "id" } });
    const answer = await deleteFrame(live, id);
    expect(answer).toMatchObject({ type: "delete_failed", status: 400, error: { code: "validation", field: "id" } });
    if (id === "nope") expect(answer).toEqual({ type: "delete_failed", ref: expect.any(String), status: 400, ...http.body });
    expect(await deleteFrame(live, mine.message.id)).toMatchObject({ type: "deleted", deleted: 1 });
    live.close();
  });

  it("deleted on the socket and again over HTTP (a retry after a lost answer): the second is a 404, one deletion", async () => {
    const { device, laptop } = await signedInWithLaptop("Rhea");
    const first = await sent(device, "socket then HTTP");
    const second = await sent(device, "HTTP then socket");
    const watching = await readyLive(laptop);
    const live = await readyLive(device);

    expect(await deleteFrame(live, first.message.id)).toMatchObject({ type: "deleted", deleted: 1 });
    expect((await device.request("DELETE", API.message(first.message.id))).status).toBe(404);

    expect((await device.request("DELETE", API.message(second.message.id))).body).toEqual({ deleted: 1 });
    expect(await deleteFrame(live, second.message.id)).toMatchObject({ type: "delete_failed", status: 404 });

    // A later change shows the log has moved past both: nothing more about them is coming.
    const later = await sent(device, "after both");
    await watching.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "message.created" && m.event.message.id === later.message.id),
    );
    expect(deletionsOf(watching, first.message.id)).toBe(1);
    expect(deletionsOf(watching, second.message.id)).toBe(1);
    live.close();
    watching.close();
  });

  it("a socket dropped after the frame left and before its answer, then the outbox's retry over HTTP: deleted once", async () => {
    const { device, laptop } = await signedInWithLaptop("Dina");
    const watching = await readyLive(laptop);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { message } = await sent(device, `dropped mid-delete ${i}`);
      ids.push(message.id);
      const live = await readyLive(device);
      live.socket.send(JSON.stringify({ type: "delete", ref: "r", id: message.id }));
      live.socket.terminate();
      const retried = await device.request("DELETE", API.message(message.id));
      expect([200, 404]).toContain(retried.status);
      expect((await device.get(API.message(message.id))).status).toBe(404);
    }
    const later = await sent(device, "after the drops");
    await watching.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "message.created" && m.event.message.id === later.message.id),
    );
    for (const id of ids) expect(deletionsOf(watching, id)).toBe(1);
    watching.close();
  });

  // Like a send frame without its body: the frame's `id` is required, whatever its value.
  it("a frame that is not a delete at all (no ref, no id) still closes the socket", async () => {
    const { device } = await signedIn("Nell");
    for (const frame of [
      { type: "delete" },
      { type: "delete", ref: "", id: randomUUID() },
      { type: "delete", ref: "x".repeat(65), id: randomUUID() },
      { type: "delete", ref: "r" },
    ]) {
      const live = await readyLive(device);
      live.socket.send(JSON.stringify(frame));
      expect(await live.waitForClose()).toBe(1008);
    }
  });
});

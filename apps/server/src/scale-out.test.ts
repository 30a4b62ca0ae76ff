/** Two server processes on one database, one Redis and one files folder (testing/two-server-processes.ts). */
import { API, type DateMessages, type Message } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, type LiveClient, textMessage } from "./testing/test-server.ts";
import { create, metadata, offsetOf, patch, TUS } from "./testing/tus-client.ts";
import { startTwoServerProcesses, type TwoServerProcesses } from "./testing/two-server-processes.ts";

let servers: TwoServerProcesses;
beforeAll(async () => {
  servers = await startTwoServerProcesses();
});
afterAll(async () => {
  await servers?.stop();
});

const lastSeq = (live: LiveClient) => Math.max(0, ...live.received.map((m) => ("seq" in m ? m.seq : 0)));
const createdWith = (content: string) => (r: LiveClient["received"]) =>
  r.some((m) => m.type === "event" && m.event.kind === "message.created" && m.event.message.content === content);

describe("two server processes", () => {
  it("share live messages, resumable uploads, and lose nothing when one is killed", async () => {
    const email = `two-${crypto.randomUUID()}@example.com`;
    const laptop = new Device(servers.one.url);
    await laptop.register("Two", email);
    const phone = new Device(servers.two.url);
    await phone.login(email);
    const laptopLive = await laptop.live();
    const phoneLive = await phone.live();
    await laptopLive.waitFor((r) => r.some((m) => m.type === "ready"));
    await phoneLive.waitFor((r) => r.some((m) => m.type === "ready"));

    // Live both ways between the processes.
    await laptop.post(API.messages, textMessage("from the laptop", Date.now()));
    await phoneLive.waitFor(createdWith("from the laptop"));
    await phone.post(API.messages, textMessage("from the phone", Date.now()));
    await laptopLive.waitFor(createdWith("from the phone"));

    // An upload started on one process resumes on the other.
    const bytes = new Uint8Array(64 * 1024).map((_, i) => i % 251);
    const { header } = metadata("notes.bin", Date.now());
    const started = await create(laptop, bytes.length, header);
    expect(started.res.status).toBe(201);
    expect((await patch(laptop, started.location, 0, bytes.subarray(0, 20_000))).status).toBe(204);
    const resumed = new Device(servers.two.url);
    resumed.cookie = laptop.cookie;
    expect(await offsetOf(resumed, started.location)).toEqual({ status: 200, offset: 20_000 });
    expect((await patch(resumed, started.location, 20_000, bytes.subarray(20_000))).status).toBe(204);
    await laptopLive.waitFor(createdWith(""));
    const file = await laptop.raw("GET", API.file(started.location.split("/").pop() ?? ""), { headers: TUS });
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);

    // Process one dies; what happened meanwhile reaches the laptop when it reconnects to process two.
    const sentBeforeCrash = await laptop.post<{ message: Message; day: DateMessages }>(
      API.messages,
      textMessage("just before", Date.now()),
    );
    expect(sentBeforeCrash.status).toBe(201);
    await laptopLive.waitFor(createdWith("just before"));
    const seenUpTo = lastSeq(laptopLive);
    await servers.one.stop("SIGKILL");
    await laptopLive.waitForClose();
    await phone.post(API.messages, textMessage("while the laptop was away", Date.now()));

    const moved = new Device(servers.two.url);
    moved.cookie = laptop.cookie;
    const again = await moved.live(seenUpTo);
    await again.waitFor((r) => r.some((m) => m.type === "ready"));
    expect(again.events().map((e) => e.event.kind)).toContain("message.created");
    expect(again.received.some((m) => m.type === "reset")).toBe(false);
    await again.waitFor(createdWith("while the laptop was away"));
    const day = await moved.get<{ messages: Message[] }>(API.dayMessages(sentBeforeCrash.body.day.id));
    expect(day.body.messages.map((m) => m.content)).toEqual(
      expect.arrayContaining(["from the laptop", "from the phone", "just before", "while the laptop was away"]),
    );
    again.close();
    phoneLive.close();
  });
});

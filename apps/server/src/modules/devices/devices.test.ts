import {
  API,
  cliUserAgent,
  type DateMessages,
  DEVICES_API,
  type DeviceResponse,
  type DevicesResponse,
  type Message,
  type ServerLiveMessage,
  type SignedOutOthersResponse,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeUserAgent } from "../../presenters/device-name.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { metadata, uploadFile } from "../../testing/tus-client.ts";

const FIREFOX_ON_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_ON_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

let server: TestServer;
beforeAll(async () => {
  // Each test signs its devices in with a password, all from one address.
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "10000" });
});
afterAll(() => server.close());

const readySeq = (received: ServerLiveMessage[]) => received.find((m) => m.type === "ready")?.seq;

async function loginAs(email: string, userAgent: string): Promise<Device> {
  const device = new Device(server.url);
  const res = await device.request("POST", API.login, { email, password: "correct horse" }, { "user-agent": userAgent });
  expect(res.status).toBe(200);
  return device;
}

describe("devices", () => {
  it("names devices from browser and OS", () => {
    expect(describeUserAgent(FIREFOX_ON_LINUX).name).toBe("Firefox 128 on Linux");
    expect(describeUserAgent(SAFARI_ON_IPHONE).name).toBe("Safari 17 on iOS 17.4");
    expect(describeUserAgent("").name).toBe("Unknown browser on unknown system");
  });

  it("tells phones, tablets and computers apart, for their icons", () => {
    const IPAD =
      "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
    expect(describeUserAgent(SAFARI_ON_IPHONE).kind).toBe("phone");
    expect(describeUserAgent(IPAD).kind).toBe("tablet");
    expect(describeUserAgent(FIREFOX_ON_LINUX).kind).toBe("computer");
    expect(describeUserAgent("").kind).toBe("computer");
  });

  it("names the command line for the machine it runs on", () => {
    expect(describeUserAgent(cliUserAgent("1.0.0", "build-box", "Linux"))).toEqual({
      browser: "daysync CLI",
      os: "Linux",
      name: "daysync CLI on build-box",
      kind: "terminal",
    });
    expect(describeUserAgent(cliUserAgent("1.0.0", "Ann's (MacBook); Pro", "macOS")).name).toBe("daysync CLI on Anns MacBook Pro");
    expect(describeUserAgent("daysync-cli/1.0.0").name).toBe("Unknown browser on unknown system");
  });

  it("lists the user's signed-in devices with this one marked, and no one else's", async () => {
    await new Device(server.url).register("Ines", "ines@example.com");
    const laptop = await loginAs("ines@example.com", FIREFOX_ON_LINUX);
    const phone = await loginAs("ines@example.com", SAFARI_ON_IPHONE);
    await new Device(server.url).register("Other", "other-ines@example.com");

    const res = await phone.get<DevicesResponse>(DEVICES_API.list);
    expect(res.status).toBe(200);
    const { devices } = res.body;
    expect(devices).toHaveLength(3);
    expect(devices.filter((d) => d.current).map((d) => d.name)).toEqual(["Safari 17 on iOS 17.4"]);
    const firefox = devices.find((d) => d.name === "Firefox 128 on Linux");
    expect(firefox).toMatchObject({ browser: "Firefox 128", os: "Linux", kind: "computer", ip: "127.0.0.1", current: false });
    expect(firefox?.signed_in_at).toBeTypeOf("number");
    expect(firefox?.last_seen_at).toBeGreaterThanOrEqual(firefox?.signed_in_at ?? 0);
    expect((await laptop.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.name).toBe("Firefox 128 on Linux");
    expect((await new Device(server.url).get(DEVICES_API.list)).status).toBe(401);
  });

  it("shows a device with its live connection open as seen now, without HTTP requests, and keeps when it went", async () => {
    await new Device(server.url).register("Lia", "lia@example.com");
    const laptop = await loginAs("lia@example.com", FIREFOX_ON_LINUX);
    const phone = await loginAs("lia@example.com", SAFARI_ON_IPHONE);
    const live = await laptop.live();
    const otherTab = await laptop.live();
    await live.waitFor((r) => readySeq(r) !== undefined);
    await otherTab.waitFor((r) => readySeq(r) !== undefined);
    const laptopSeen = async () =>
      (await phone.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.name === "Firefox 128 on Linux")?.last_seen_at;
    const signedInAt = await laptopSeen();

    expect(signedInAt).toBe(server.clock.now());
    const laptopId = (await laptop.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";

    server.clock.advance(10 * 60_000);
    expect(await laptopSeen()).toBe(server.clock.now());
    // One tab of two closing leaves the device live.
    otherTab.close();
    await otherTab.waitForClose(1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.clock.advance(60_000);
    expect(await laptopSeen()).toBe(server.clock.now());
    const wentAt = server.clock.now();
    live.close();
    const stored = async () =>
      Number(
        (await server.db.selectFrom("sessions").select("last_seen_at").where("id", "=", laptopId).executeTakeFirstOrThrow()).last_seen_at,
      );
    await expect.poll(stored).toBe(wentAt);
    server.clock.advance(60_000);
    expect(await laptopSeen()).toBe(wentAt);
  });

  it("signs a device out: its live connection closes within a second and its cookie stops working", async () => {
    await new Device(server.url).register("Rev", "rev@example.com");
    const keeper = await loginAs("rev@example.com", FIREFOX_ON_LINUX);
    const lost = await loginAs("rev@example.com", SAFARI_ON_IPHONE);
    const lostLive = await lost.live();
    const keeperLive = await keeper.live();
    await lostLive.waitFor((r) => readySeq(r) !== undefined);
    await keeperLive.waitFor((r) => readySeq(r) !== undefined);

    const target = (await lost.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current);
    if (!target) throw new Error("no current device");
    const started = Date.now();
    expect((await keeper.request("DELETE", DEVICES_API.one(target.id))).status).toBe(204);
    expect(await lostLive.waitForClose(1000)).toBe(4403);
    expect(Date.now() - started).toBeLessThan(1000);

    expect((await lost.get(API.me)).status).toBe(401);
    await expect(lost.live()).rejects.toThrow("live refused: 401");
    expect((await keeper.get(API.me)).status).toBe(200);
    await keeperLive.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "device.signed_out" && m.event.id === target.id));
    const left = (await keeper.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    expect(left.map((d) => d.id)).not.toContain(target.id);
    keeperLive.close();
  });

  it("a device that logs itself out ends its session as the Devices list does: the others get device.signed_out, live and on resume", async () => {
    await new Device(server.url).register("Lou", "lou@example.com");
    const keeper = await loginAs("lou@example.com", FIREFOX_ON_LINUX);
    const leaver = await loginAs("lou@example.com", SAFARI_ON_IPHONE);
    const leaverId = (await leaver.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id;
    if (!leaverId) throw new Error("no current device");
    const keeperLive = await keeper.live();
    const leaverLive = await leaver.live();
    await keeperLive.waitFor((r) => readySeq(r) !== undefined);
    const before = readySeq(keeperLive.received) ?? 0;
    await leaverLive.waitFor((r) => readySeq(r) !== undefined);

    expect((await leaver.request("POST", API.logout)).status).toBe(204);
    expect(await leaverLive.waitForClose(1000)).toBe(4403);
    const signedOut = (m: ServerLiveMessage) => m.type === "event" && m.event.kind === "device.signed_out" && m.event.id === leaverId;
    await keeperLive.waitFor((r) => r.some(signedOut));
    expect((await keeper.get<DevicesResponse>(DEVICES_API.list)).body.devices.map((d) => d.id)).not.toContain(leaverId);
    keeperLive.close();

    // Logged like a sign-out from the list: a device that was away learns of it when it resumes.
    const resumed = await keeper.live(before);
    await resumed.waitFor((r) => r.some(signedOut));
    resumed.close();
  });

  it("tells the user's other devices when one signs in with a password", async () => {
    await new Device(server.url).register("Tam", "tam@example.com");
    const phone = await loginAs("tam@example.com", SAFARI_ON_IPHONE);
    const live = await phone.live();
    await live.waitFor((r) => r.some((m) => m.type === "ready"));
    await loginAs("tam@example.com", FIREFOX_ON_LINUX);
    const isFirefoxSignIn = (m: ServerLiveMessage) =>
      m.type === "event" && m.event.kind === "device.signed_in" && m.event.device.name === "Firefox 128 on Linux";
    await live.waitFor((r) => r.some(isFirefoxSignIn));
    live.close();
  });

  it("refuses to sign out another user's device (404) and checks the id", async () => {
    await new Device(server.url).register("Own", "own@example.com");
    const victim = await loginAs("own@example.com", FIREFOX_ON_LINUX);
    const victimId = (await victim.get<DevicesResponse>(DEVICES_API.list)).body.devices[0]?.id ?? "";
    const attacker = new Device(server.url);
    await attacker.register("Mallory", "mallory@example.com");
    const res = await attacker.request("DELETE", DEVICES_API.one(victimId));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "not_found", message: "No such device." } });
    expect((await victim.get(API.me)).status).toBe(200);
    expect((await attacker.request("DELETE", DEVICES_API.one("not-a-uuid"))).status).toBe(400);
    expect((await new Device(server.url).request("DELETE", DEVICES_API.one(victimId))).status).toBe(401);
  });

  it("signing out this very device clears its cookie", async () => {
    const d = new Device(server.url);
    await d.register("Self", "self@example.com");
    const me = (await d.get<DevicesResponse>(DEVICES_API.list)).body.devices[0];
    const res = await d.request("DELETE", DEVICES_API.one(me?.id ?? ""));
    expect(res.status).toBe(204);
    expect(d.cookie).toBe("");
  });

  it("marks each message with the device that sent it; a rename shows on the list, on its messages and live", async () => {
    await new Device(server.url).register("Nia", "nia@example.com");
    const laptop = await loginAs("nia@example.com", FIREFOX_ON_LINUX);
    const phone = await loginAs("nia@example.com", SAFARI_ON_IPHONE);
    const phoneLive = await phone.live();
    await phoneLive.waitFor((r) => readySeq(r) !== undefined);
    const laptopId = await currentId(laptop);

    const first = await laptop.post<Sent>(API.messages, textMessage("from the laptop", server.clock.now()));
    expect(first.status).toBe(201);
    expect(first.body.message.device).toEqual({ id: laptopId, name: "Firefox 128 on Linux" });
    const created = (m: ServerLiveMessage) =>
      m.type === "event" && m.event.kind === "message.created" && m.event.message.id === first.body.message.id;
    await phoneLive.waitFor((r) => r.some(created));
    const live = phoneLive.received.find(created);
    expect(live?.type === "event" && live.event.kind === "message.created" && live.event.message.device?.name).toBe("Firefox 128 on Linux");

    const beforeRename = readySeq(phoneLive.received) ?? 0;
    const renamed = await phone.request("PATCH", DEVICES_API.one(laptopId), { name: "  Work laptop  " });
    expect(renamed.status).toBe(200);
    expect((renamed.body as DeviceResponse).device).toMatchObject({
      id: laptopId,
      name: "Work laptop",
      current: false,
      browser: "Firefox 128",
    });
    await phoneLive.waitFor((r) =>
      r.some((m) => m.type === "event" && m.event.kind === "device.renamed" && m.event.id === laptopId && m.event.name === "Work laptop"),
    );
    const listed = (await phone.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    expect(listed.find((d) => d.id === laptopId)?.name).toBe("Work laptop");
    const dayMessages = async () => (await phone.get<{ messages: Message[] }>(API.dayMessages(first.body.day.id))).body.messages;
    expect((await dayMessages()).map((m) => m.device?.name)).toEqual(["Work laptop"]);

    // A device that was away hears of it when it resumes.
    const resumed = await phone.live(beforeRename);
    await resumed.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "device.renamed" && m.event.name === "Work laptop"));
    resumed.close();

    // What it sends next carries the new name at once (its cached session was dropped), and keeps it once signed out.
    const second = await laptop.post<Sent>(API.messages, textMessage("renamed", server.clock.now()));
    expect(second.body.message.device?.name).toBe("Work laptop");
    expect((await phone.request("DELETE", DEVICES_API.one(laptopId))).status).toBe(204);
    expect((await dayMessages()).map((m) => m.device)).toEqual([
      { id: laptopId, name: "Work laptop" },
      { id: laptopId, name: "Work laptop" },
    ]);
    phoneLive.close();
  });

  it("names the command line's messages, typed or uploaded, after its machine", async () => {
    await new Device(server.url).register("Cli", "cli-user@example.com");
    const terminal = await loginAs("cli-user@example.com", cliUserAgent("1.0.0", "build-box", "Linux"));
    const sent = await terminal.post<Sent>(API.messages, textMessage("from a terminal", server.clock.now()));
    expect(sent.body.message.device?.name).toBe("daysync CLI on build-box");
    const file = metadata("notes.txt", server.clock.now());
    await uploadFile(terminal, new TextEncoder().encode("some notes"), file.header);
    const uploaded = await terminal.get<Sent>(API.message(file.messageId));
    expect(uploaded.body.message.device?.name).toBe("daysync CLI on build-box");
  });

  it("refuses to rename another user's device (404) and checks the name (400 naming the field)", async () => {
    await new Device(server.url).register("Ren", "ren@example.com");
    const own = await loginAs("ren@example.com", FIREFOX_ON_LINUX);
    const ownId = await currentId(own);
    const other = new Device(server.url);
    await other.register("Eve", "eve-ren@example.com");
    const foreign = await other.request("PATCH", DEVICES_API.one(ownId), { name: "Mine now" });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: "not_found", message: "No such device." } });

    for (const [body, message] of [
      [{ name: "   " }, "Enter a name for the device."],
      [{}, "Enter a name for the device."],
      [{ name: "x".repeat(61) }, "A device name must be at most 60 characters."],
    ] as const) {
      const res = await own.request("PATCH", DEVICES_API.one(ownId), body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { message, field: "name" } });
    }
    expect((await own.request("PATCH", DEVICES_API.one(ownId), { name: "x".repeat(60) })).status).toBe(200);
    expect((await new Device(server.url).request("PATCH", DEVICES_API.one(ownId), { name: "Anon" })).status).toBe(401);
    expect((await own.get<DevicesResponse>(DEVICES_API.list)).body.devices[0]?.name).toBe("x".repeat(60));
  });

  it("signs out all other devices: only this session is left, the others get 401 and their sockets close", async () => {
    await new Device(server.url).register("All", "all@example.com");
    const keeper = await loginAs("all@example.com", FIREFOX_ON_LINUX);
    const others = [await loginAs("all@example.com", SAFARI_ON_IPHONE), await loginAs("all@example.com", FIREFOX_ON_LINUX)];
    const otherLives = await Promise.all(others.map((d) => d.live()));
    for (const live of otherLives) await live.waitFor((r) => readySeq(r) !== undefined);
    const keeperLive = await keeper.live();
    await keeperLive.waitFor((r) => readySeq(r) !== undefined);
    const stranger = await loginAs("eve-ren@example.com", SAFARI_ON_IPHONE);

    const res = await keeper.post<SignedOutOthersResponse>(DEVICES_API.signOutOthers, {});
    expect(res.status).toBe(200);
    // The two above, and the one that registered.
    expect(res.body).toEqual({ signed_out: 3 });
    for (const live of otherLives) expect(await live.waitForClose(1000)).toBe(4403);
    for (const other of others) expect((await other.get(API.me)).status).toBe(401);
    const left = (await keeper.get<DevicesResponse>(DEVICES_API.list)).body.devices;
    expect(left.map((d) => d.current)).toEqual([true]);
    await keeperLive.waitFor((r) => r.filter((m) => m.type === "event" && m.event.kind === "device.signed_out").length === 3);
    expect((await stranger.get(API.me)).status).toBe(200);
    expect((await new Device(server.url).post(DEVICES_API.signOutOthers, {})).status).toBe(401);
    keeperLive.close();
  });

  it("lists this device first, then the others by last seen, newest first", async () => {
    await new Device(server.url).register("Ord", "ord@example.com");
    const on = (host: string) => cliUserAgent("1.0.0", host, "Linux");
    server.clock.advance(2 * 60_000);
    const a = await loginAs("ord@example.com", on("a"));
    server.clock.advance(2 * 60_000);
    await loginAs("ord@example.com", on("b"));
    server.clock.advance(2 * 60_000);
    const c = await loginAs("ord@example.com", on("c"));
    const order = async () =>
      (await c.get<DevicesResponse>(DEVICES_API.list)).body.devices.map((d) => d.name.replace("daysync CLI on ", ""));
    expect(await order()).toEqual(["c", "b", "a", "Unknown browser on unknown system"]);
    server.clock.advance(2 * 60_000);
    expect((await a.get(API.me)).status).toBe(200);
    expect(await order()).toEqual(["c", "a", "b", "Unknown browser on unknown system"]);
  });
});

type Sent = { message: Message; day: DateMessages };

async function currentId(device: Device): Promise<string> {
  const id = (await device.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id;
  if (!id) throw new Error("no current device");
  return id;
}

/** Add a device (decision 013): the signed-in device shows the code, the new device opens it, the first approves. */
import {
  API,
  DEVICES_API,
  type DevicesResponse,
  PAIR_LIVE_CLOSE,
  PAIRING_API,
  PAIRING_TTL_MS,
  type PairingJoined,
  type PairingOfferCreated,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PairWaiter } from "../../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const FIREFOX_ON_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0";
const CHROME_ON_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

let users = 0;
async function signedInLaptop(): Promise<{ laptop: Device; user: User }> {
  const laptop = new Device(server.url);
  laptop.request = wrapUserAgent(laptop, CHROME_ON_MAC);
  users += 1;
  const user = await laptop.register(`Offerer ${users}`, `offerer${users}@example.com`);
  return { laptop, user };
}

/** Every request of this device says it is that browser. */
function wrapUserAgent(device: Device, userAgent: string): Device["request"] {
  const original = device.request.bind(device);
  return (method, path, body, headers = {}) => original(method, path, body, { "user-agent": userAgent, ...headers });
}

async function offer(laptop: Device): Promise<PairingOfferCreated> {
  const res = await laptop.post<PairingOfferCreated>(PAIRING_API.offers);
  expect(res.status).toBe(201);
  return res.body;
}

function phone(): Device {
  const device = new Device(server.url);
  device.request = wrapUserAgent(device, FIREFOX_ON_ANDROID);
  return device;
}

const join = (device: Device, code: string) => device.post<PairingJoined>(PAIRING_API.join(code));

describe("add a device: the signed-in device shows the code", () => {
  it("signs the phone in end to end: offer → join → claimed → approve → token → exchange, and tells the other devices", async () => {
    const { laptop, user } = await signedInLaptop();
    const laptopLive = await laptop.live();
    await laptopLive.waitFor((r) => r.some((m) => m.type === "ready"));

    const created = await offer(laptop);
    expect(Buffer.from(created.code, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    // The lookup half of the typed code: the offering device adds the password half (pairing-exchange.ts).
    expect(created.short_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(created.expires_in).toBe(PAIRING_TTL_MS);
    expect(JSON.stringify(created)).not.toMatch(/secret|token/);

    const watcher = await PairWaiter.watch(server.url, created.offer_id, laptop.cookie);
    expect((await watcher.next("waiting")).expires_in).toBeGreaterThan(PAIRING_TTL_MS - 5000);

    const newPhone = phone();
    const joined = await join(newPhone, created.code);
    expect(joined.status).toBe(201);
    expect(newPhone.cookie).toBe("");
    const laptopName = (await laptop.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.name;
    expect(laptopName).toBe("Chrome 124 on macOS");
    expect(joined.body).toMatchObject({ request_id: created.offer_id, device_name: laptopName, expires_in: PAIRING_TTL_MS });

    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");
    const { request } = await watcher.next("claimed");
    expect(request).toMatchObject({ browser: "Firefox 125", os: "Android 14", ip: "127.0.0.1" });
    expect(Math.abs(request.created_at - server.clock.now())).toBeLessThan(1000);
    expect(await watcher.waitForClose()).toBe(1000);
    expect(waiter.received.some((m) => m.type === "approved")).toBe(false);

    expect((await laptop.post(PAIRING_API.approveOffer(created.offer_id))).status).toBe(204);
    const { token } = await waiter.next("approved");
    const res = await newPhone.post<{ user: User }>(PAIRING_API.exchange, {
      request_id: joined.body.request_id,
      secret: joined.body.secret,
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(newPhone.cookie).toMatch(/^daysync_session=/);

    const list = await newPhone.get<DevicesResponse>(DEVICES_API.list);
    expect(list.body.devices).toHaveLength(2);
    const current = list.body.devices.find((d) => d.current);
    await laptopLive.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "device.signed_in"));
    expect(laptopLive.events().find((e) => e.event.kind === "device.signed_in")?.event).toMatchObject({ device: { id: current?.id } });
    laptopLive.close();
  });

  it("opens by the short code too, and only once: a second join and a second answer are refused", async () => {
    const { laptop } = await signedInLaptop();
    const self = (await laptop.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current);
    expect((await laptop.request("PATCH", DEVICES_API.one(self?.id ?? ""), { name: "Kitchen laptop" })).status).toBe(200);
    const created = await offer(laptop);
    const typed = `${created.short_code.slice(0, 4).toLowerCase()}-${created.short_code.slice(4)}`;
    const first = await join(phone(), typed);
    expect(first.status).toBe(201);
    // The name the user gave it, as the Devices list shows it.
    expect(first.body.device_name).toBe("Kitchen laptop");

    for (const code of [created.code, created.short_code]) {
      const again = await join(phone(), code);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ error: { code: "pairing_answered" } });
    }

    expect((await laptop.post(PAIRING_API.approveOffer(created.offer_id))).status).toBe(204);
    const second = await laptop.post(PAIRING_API.approveOffer(created.offer_id));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: { code: "pairing_answered" } });
    expect((await laptop.post(PAIRING_API.denyOffer(created.offer_id))).status).toBe(409);
  });

  it("grants nothing before a device opens the code, and the code alone never signs in", async () => {
    const { laptop } = await signedInLaptop();
    const created = await offer(laptop);
    const early = await laptop.post(PAIRING_API.approveOffer(created.offer_id));
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: { code: "pairing_unclaimed" } });

    // The offer's code is not a pairing request: the other direction's routes do not know it.
    const { laptop: other } = await signedInLaptop();
    expect((await other.get(PAIRING_API.request(created.code))).status).toBe(404);
    expect((await other.post(PAIRING_API.approve(created.short_code))).status).toBe(404);
    // Nor is the short code of a pairing request an offer.
    const asked = await phone().post<{ code: string; short_code: string }>(PAIRING_API.requests);
    expect((await join(phone(), asked.body.short_code)).status).toBe(404);
    expect((await join(phone(), asked.body.code)).status).toBe(404);

    const joined = await join(phone(), created.code);
    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");
    const forged = await phone().post(PAIRING_API.exchange, {
      request_id: joined.body.request_id,
      secret: joined.body.secret,
      token: "x".repeat(43),
    });
    expect(forged.status).toBe(401);
  });

  it("expires: an unopened code after two minutes, and an opened one left unanswered", async () => {
    const { laptop } = await signedInLaptop();
    const stale = await offer(laptop);
    const watcher = await PairWaiter.watch(server.url, stale.offer_id, laptop.cookie);
    await watcher.next("waiting");
    server.clock.advance(PAIRING_TTL_MS + 1000);
    const late = await join(phone(), stale.code);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: "pairing_expired" } });
    const lateWatcher = await PairWaiter.watch(server.url, stale.offer_id, laptop.cookie);
    await lateWatcher.next("expired");

    const opened = await offer(laptop);
    const joined = await join(phone(), opened.code);
    expect(joined.status).toBe(201);
    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");
    server.clock.advance(PAIRING_TTL_MS + 1000);
    const approve = await laptop.post(PAIRING_API.approveOffer(opened.offer_id));
    expect(approve.status).toBe(409);
    expect(approve.body).toMatchObject({ error: { code: "pairing_expired" } });
    const again = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await again.next("expired");
  });

  it("denies: the phone hears it and cannot sign in", async () => {
    const { laptop } = await signedInLaptop();
    const created = await offer(laptop);
    const stranger = phone();
    const joined = await join(stranger, created.code);
    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");
    expect((await laptop.post(PAIRING_API.denyOffer(created.offer_id))).status).toBe(204);
    await waiter.next("denied");
    expect(waiter.received.some((m) => m.type === "approved")).toBe(false);
    const res = await stranger.post(PAIRING_API.exchange, {
      request_id: joined.body.request_id,
      secret: joined.body.secret,
      token: "x".repeat(43),
    });
    expect(res.status).toBe(401);
    expect(stranger.cookie).toBe("");
  });

  it("refuses the answer of another account, of another device of the same account, and of no one", async () => {
    const { laptop, user } = await signedInLaptop();
    const { laptop: intruder } = await signedInLaptop();
    const sameAccountPhone = new Device(server.url);
    await sameAccountPhone.login(user.email);
    const created = await offer(laptop);
    const joined = await join(phone(), created.code);
    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");

    for (const device of [intruder, sameAccountPhone]) {
      const approve = await device.post(PAIRING_API.approveOffer(created.offer_id));
      expect(approve.status).toBe(404);
      expect(approve.body).toMatchObject({ error: { code: "not_found" } });
      expect((await device.post(PAIRING_API.denyOffer(created.offer_id))).status).toBe(404);
      const watch = await PairWaiter.watch(server.url, created.offer_id, device.cookie);
      await watch.next("failed");
    }
    expect((await new Device(server.url).post(PAIRING_API.approveOffer(created.offer_id))).status).toBe(401);
    expect((await new Device(server.url).post(PAIRING_API.offers)).status).toBe(401);
    expect((await laptop.post(PAIRING_API.approveOffer("not-a-uuid"))).status).toBe(400);

    // Still the laptop's to answer.
    expect((await laptop.post(PAIRING_API.approveOffer(created.offer_id))).status).toBe(204);
    await waiter.next("approved");
  });

  it("lets exactly one of several racing joins, and of several racing answers, win", async () => {
    const { laptop } = await signedInLaptop();
    const created = await offer(laptop);
    const joins = await Promise.all([1, 2, 3, 4].map((n) => join(phone(), n % 2 ? created.code : created.short_code)));
    expect(joins.filter((r) => r.status === 201)).toHaveLength(1);
    expect(joins.filter((r) => r.status === 409)).toHaveLength(3);
    const joined = joins.find((r) => r.status === 201)?.body as PairingJoined;
    const waiter = await PairWaiter.open(server.url, joined.request_id, joined.secret);
    await waiter.next("waiting");

    const answers = await Promise.all([
      laptop.post(PAIRING_API.approveOffer(created.offer_id)),
      laptop.post(PAIRING_API.approveOffer(created.offer_id)),
      laptop.post(PAIRING_API.denyOffer(created.offer_id)),
      laptop.post(PAIRING_API.approveOffer(created.offer_id)),
    ]);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    await waiter.next(statuses.indexOf(204) === 2 ? "denied" : "approved");
  });
});

describe("add a device: the code of a device that is signed out", () => {
  const signOuts: Array<[string, (laptop: Device, other: Device, laptopId: string) => Promise<{ status: number }>]> = [
    ["by itself", (laptop) => laptop.post(API.logout)],
    ["from another device", (_laptop, other, laptopId) => other.request("DELETE", DEVICES_API.one(laptopId))],
    ["by another device's sign out of all others", (_laptop, other) => other.post(DEVICES_API.signOutOthers)],
  ];

  it.each(signOuts)("closes the offer's watch socket when the device is signed out %s", async (_label, signOut) => {
    const { laptop, user } = await signedInLaptop();
    const other = new Device(server.url);
    await other.login(user.email);
    const laptopId = (await laptop.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";
    const created = await offer(laptop);
    const watcher = await PairWaiter.watch(server.url, created.offer_id, laptop.cookie);
    await watcher.next("waiting");

    expect((await signOut(laptop, other, laptopId)).status).toBeLessThan(300);
    expect(await watcher.waitForClose()).toBe(PAIR_LIVE_CLOSE.signedOut);
    expect(watcher.closeReason).toBe("Signed out");
    expect(watcher.received.map((m) => m.type)).toEqual(["waiting"]);
  });
});

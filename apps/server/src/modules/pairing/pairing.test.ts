import {
  API,
  DEVICES_API,
  type DevicesResponse,
  LOGIN_TOKEN_TTL_MS,
  PAIRING_API,
  PAIRING_TTL_MS,
  type PairingRequestCreated,
  type PairingRequestDetails,
  type ServerLiveMessage,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PairWaiter } from "../../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

const CHROME_ON_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

let users = 0;
async function signedInDevice(): Promise<{ device: Device; user: User }> {
  const device = new Device(server.url);
  users += 1;
  const user = await device.register(`Approver ${users}`, `approver${users}@example.com`);
  return { device, user };
}

/** A device with no session that asks to be signed in, as the login page's side panel does. */
async function askToPair(device = new Device(server.url)) {
  const res = await device.request<PairingRequestCreated>("POST", PAIRING_API.requests, undefined, { "user-agent": CHROME_ON_WINDOWS });
  expect(res.status).toBe(201);
  return { device, request: res.body };
}

function exchange(device: Device, body: { request_id: string; secret: string; token: string }) {
  return device.request<{ user: User }>("POST", PAIRING_API.exchange, body, { "user-agent": CHROME_ON_WINDOWS });
}

const readySeq = (received: ServerLiveMessage[]) => received.find((m) => m.type === "ready")?.seq;

describe("sign in with a connected device", () => {
  it("pairs: request → approve → token over the waiting channel → exchange → session, and tells the other devices", async () => {
    const { device: phone, user } = await signedInDevice();
    const phoneLive = await phone.live();
    await phoneLive.waitFor((r) => readySeq(r) !== undefined);

    const { device: laptop, request } = await askToPair();
    expect(Buffer.from(request.code, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    expect(request.short_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
    expect(request.expires_in).toBe(PAIRING_TTL_MS);
    expect(laptop.cookie).toBe("");

    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    expect((await waiter.next("waiting")).expires_in).toBeGreaterThan(PAIRING_TTL_MS - 5000);

    const details = await phone.get<{ request: PairingRequestDetails }>(PAIRING_API.request(request.code));
    expect(details.status).toBe(200);
    expect(details.body.request).toMatchObject({ browser: "Chrome 120", os: "Windows", name: "Chrome 120 on Windows", ip: "127.0.0.1" });
    expect(Math.abs(details.body.request.created_at - server.clock.now())).toBeLessThan(1000);

    expect((await phone.post(PAIRING_API.approve(request.code))).status).toBe(204);
    const { token } = await waiter.next("approved");
    expect(await waiter.waitForClose()).toBe(1000);

    const res = await exchange(laptop, { request_id: request.request_id, secret: request.secret, token });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(laptop.cookie).toMatch(/^daysync_session=/);
    expect((await laptop.get<{ user: User }>(API.me)).body.user.email).toBe(user.email);

    const list = await laptop.get<DevicesResponse>(DEVICES_API.list);
    const current = list.body.devices.find((d) => d.current);
    expect(list.body.devices).toHaveLength(2);
    expect(current?.name).toBe("Chrome 120 on Windows");

    await phoneLive.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "device.signed_in"));
    const notice = phoneLive.events().find((e) => e.event.kind === "device.signed_in")?.event;
    expect(notice).toMatchObject({ kind: "device.signed_in", device: { id: current?.id, name: "Chrome 120 on Windows" } });
    phoneLive.close();
  });

  it("finds a request by its short code, typed in any case and with or without the dash", async () => {
    const { device: phone } = await signedInDevice();
    const { device: tablet, request } = await askToPair();
    const typed = `${request.short_code.slice(0, 4).toLowerCase()}-${request.short_code.slice(4)}`;
    expect((await phone.get(PAIRING_API.request(typed))).status).toBe(200);
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    expect((await phone.post(PAIRING_API.approve(request.short_code))).status).toBe(204);
    const { token } = await waiter.next("approved");
    expect((await exchange(tablet, { request_id: request.request_id, secret: request.secret, token })).status).toBe(200);
  });

  it("refuses an expired code, and tells the waiting device", async () => {
    const { device: phone } = await signedInDevice();
    const { request } = await askToPair();
    server.clock.advance(PAIRING_TTL_MS + 1000);
    const details = await phone.get(PAIRING_API.request(request.code));
    expect(details.status).toBe(409);
    expect(details.body).toMatchObject({ error: { code: "pairing_expired" } });
    expect((await phone.post(PAIRING_API.approve(request.code))).status).toBe(409);
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("expired");
    expect(await waiter.waitForClose()).toBe(1000);
  });

  it("refuses a token once its minute is over", async () => {
    const { device: phone } = await signedInDevice();
    const { device: slow, request } = await askToPair();
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");
    await phone.post(PAIRING_API.approve(request.code));
    const { token } = await waiter.next("approved");
    server.clock.advance(LOGIN_TOKEN_TTL_MS + 1000);
    const res = await exchange(slow, { request_id: request.request_id, secret: request.secret, token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: "login_failed", message: "Login failed. Try again." } });
    expect(slow.cookie).toBe("");
  });

  it("denies: the waiting device hears it and no token can sign it in", async () => {
    const { device: phone } = await signedInDevice();
    const { device: stranger, request } = await askToPair();
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");
    expect((await phone.post(PAIRING_API.deny(request.code))).status).toBe(204);
    await waiter.next("denied");
    expect(waiter.received.some((m) => m.type === "approved")).toBe(false);
    const res = await exchange(stranger, { request_id: request.request_id, secret: request.secret, token: "x".repeat(43) });
    expect(res.status).toBe(401);
    const again = await phone.post(PAIRING_API.approve(request.code));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: "pairing_answered" } });
  });

  it("refuses a replayed token, and hands a token out only once", async () => {
    const { device: phone } = await signedInDevice();
    const { device: laptop, request } = await askToPair();
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await phone.post(PAIRING_API.approve(request.code));
    const { token } = await waiter.next("approved");
    const body = { request_id: request.request_id, secret: request.secret, token };
    expect((await exchange(laptop, body)).status).toBe(200);
    expect((await exchange(new Device(server.url), body)).status).toBe(401);

    const late = await PairWaiter.open(server.url, request.request_id, request.secret);
    await late.next("failed");
  });

  it("refuses foreign tokens and wrong secrets; each request signs in to its own approver's account", async () => {
    const { device: phoneA, user: userA } = await signedInDevice();
    const { device: phoneB, user: userB } = await signedInDevice();
    const { device: newA, request: reqA } = await askToPair();
    const { device: newB, request: reqB } = await askToPair();
    const waiterA = await PairWaiter.open(server.url, reqA.request_id, reqA.secret);
    const waiterB = await PairWaiter.open(server.url, reqB.request_id, reqB.secret);
    await phoneA.post(PAIRING_API.approve(reqA.code));
    await phoneB.post(PAIRING_API.approve(reqB.code));
    const tokenA = (await waiterA.next("approved")).token;
    const tokenB = (await waiterB.next("approved")).token;

    // Another request's token, another request's secret, a waiter with a wrong secret: all refused.
    expect((await exchange(newA, { request_id: reqA.request_id, secret: reqA.secret, token: tokenB })).status).toBe(401);
    expect((await exchange(newA, { request_id: reqB.request_id, secret: reqA.secret, token: tokenB })).status).toBe(401);
    const impostor = await PairWaiter.open(server.url, reqA.request_id, reqB.secret);
    await impostor.next("failed");

    // Signing in needs no one's session, and approving needs one.
    expect((await new Device(server.url).post(PAIRING_API.approve(reqA.code))).status).toBe(401);
    expect((await new Device(server.url).get(PAIRING_API.request(reqA.code))).status).toBe(401);

    const a = await exchange(newA, { request_id: reqA.request_id, secret: reqA.secret, token: tokenA });
    const b = await exchange(newB, { request_id: reqB.request_id, secret: reqB.secret, token: tokenB });
    expect(a.body.user.id).toBe(userA.id);
    expect(b.body.user.id).toBe(userB.id);
  });

  it("lets exactly one of two racing approvals win", async () => {
    const { device: phoneA, user: userA } = await signedInDevice();
    const { device: phoneB, user: userB } = await signedInDevice();
    const { device: laptop, request } = await askToPair();
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");

    const answers = await Promise.all([
      phoneA.post(PAIRING_API.approve(request.code)),
      phoneB.post(PAIRING_API.approve(request.short_code)),
      phoneA.post(PAIRING_API.deny(request.code)),
    ]);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(2);

    const winner = statuses.indexOf(204);
    if (winner === 2) {
      await waiter.next("denied");
      return;
    }
    const { token } = await waiter.next("approved");
    const res = await exchange(laptop, { request_id: request.request_id, secret: request.secret, token });
    expect(res.body.user.id).toBe(winner === 0 ? userA.id : userB.id);
  });

  it("answers 404 for an unknown code and 400 for a malformed exchange", async () => {
    const { device: phone } = await signedInDevice();
    expect((await phone.get(PAIRING_API.request("no-such-code-at-all-0123456789"))).status).toBe(404);
    expect((await phone.get(PAIRING_API.request("ZZZZ-ZZZZ"))).status).toBe(404);
    const res = await new Device(server.url).post(PAIRING_API.exchange, { request_id: "nope", secret: "s", token: "t" });
    expect(res.status).toBe(400);
  });
});

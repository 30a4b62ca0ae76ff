/**
 * A locked device's request to be approved by a typed code (docs/protocol/encryption.md, "Approving a device"): its
 * steps in order, wrong codes, the handover's checks, the live events, and the limit on asking. Who may take each
 * step and deny: key-request-access.test.ts.
 */
import { type ApproveKeyRequestInput, KEY_REQUEST_LIFETIME_MS, KEYS_API, type KeyRequest } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person, ready } from "../../testing/discussion-api.ts";
import { b64, keyed } from "../../testing/key-material.ts";
import { account, ask, confirmed, handover, listOf } from "../../testing/key-request-steps.ts";
import { sessionIdOf, stateOf } from "../../testing/key-state.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

describe("a check-code request, step by step", () => {
  it("goes pending → answered → confirmed → approved, and the handover lands for the asking device", async () => {
    const a = await account(server, "Ann");
    const laptopId = await sessionIdOf(a.laptop);
    const share = b64(32);
    const asked = await a.laptop.post<{ request: KeyRequest }>(KEYS_API.requests, { requester_share: share });
    expect(asked.status).toBe(201);
    const request = asked.body.request;
    expect(request).toMatchObject({
      session_id: laptopId,
      device: { id: laptopId, ip: "127.0.0.1", name: expect.any(String), browser: expect.any(String), key_status: "waiting" },
      status: "pending",
      requester_public_key: a.laptopKey.publicKey,
      requester_key_id: a.laptopKey.keyId,
      requester_share: share,
      approver_session_id: null,
      approver_public_key: null,
      approver_share: null,
      approver_confirmation: null,
      requester_confirmation: null,
      handover_confirmation: null,
      failures: 0,
      created_at: server.clock.now(),
      expires_at: server.clock.now() + KEY_REQUEST_LIFETIME_MS,
    });
    // Every device of the account sees it, the asking one too.
    expect(await listOf(a.phone)).toEqual([request]);
    expect(await listOf(a.laptop)).toEqual([request]);

    const answer = { approver_share: b64(32), approver_confirmation: b64(32) };
    const answered = await a.phone.post<{ request: KeyRequest }>(KEYS_API.answer(request.id), answer);
    expect(answered.status).toBe(200);
    expect(answered.body.request).toMatchObject({
      status: "answered",
      approver_session_id: await sessionIdOf(a.phone),
      approver_public_key: a.phoneKey.publicKey,
      approver_key_id: a.phoneKey.keyId,
      ...answer,
    });
    // One device answers: the tablet is too late.
    const late = await a.tablet.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) });
    expect(late).toMatchObject({ status: 409, body: { error: { code: "key_request_taken" } } });

    const requesterConfirmation = b64(32);
    const shown = await a.laptop.post<{ request: KeyRequest }>(KEYS_API.confirm(request.id), {
      requester_confirmation: requesterConfirmation,
    });
    expect(shown.body.request).toMatchObject({ status: "confirmed", requester_confirmation: requesterConfirmation });
    expect(await listOf(a.phone)).toEqual([shown.body.request]);

    expect((await stateOf(a.laptop)).wraps).toEqual([]);
    const body = handover(a);
    const approved = await a.phone.post<{ request: KeyRequest }>(KEYS_API.approve(request.id), body);
    // The Devices list's words for it: it holds the key now (the person's Yes is the device's own business).
    expect(approved).toMatchObject({
      status: 200,
      body: { request: { status: "approved", handover_confirmation: body.handover_confirmation, device: { key_status: "can_read" } } },
    });
    const laptopState = await stateOf(a.laptop);
    expect(laptopState.wraps).toEqual([{ ...body.wraps[0], created_at: server.clock.now() }]);
    expect(laptopState.roster).toContainEqual({ ...body.roster, added_at: server.clock.now() });
    // The asking device still finds its approved request (the person may say Yes after the approval).
    expect((await listOf(a.laptop)).map((r) => r.status)).toEqual(["approved"]);
    // Done is done.
    expect(await a.phone.post(KEYS_API.approve(request.id), handover(a))).toMatchObject({
      status: 409,
      body: { error: { code: "key_request_state" } },
    });
  });

  it("refuses steps out of order", async () => {
    const a = await account(server, "Ord");
    const request = await ask(a.laptop);
    expect(await a.laptop.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).toMatchObject({
      status: 409,
      body: { error: { code: "key_request_state" } },
    });
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
    expect(await a.phone.post(KEYS_API.approve(request.id), handover(a))).toMatchObject({
      status: 409,
      body: { error: { code: "key_request_state" } },
    });
    expect((await stateOf(a.laptop)).wraps).toEqual([]);
  });

  it("a wrong code takes the request back to pending for another try, and the third ends it as failed", async () => {
    const a = await account(server, "Wro");
    const request = await ask(a.laptop);
    for (let failures = 1; failures <= 3; failures++) {
      expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(
        200,
      );
      // Only the asking device can tell the code was wrong.
      expect((await a.phone.post(KEYS_API.reject(request.id))).status).toBe(403);
      const rejected = await a.laptop.post<{ request: KeyRequest }>(KEYS_API.reject(request.id));
      expect(rejected.body.request).toMatchObject({
        status: failures < 3 ? "pending" : "failed",
        failures,
        approver_session_id: null,
        approver_share: null,
        approver_confirmation: null,
      });
    }
    // Ended: no more answers, no more wrong codes; the account's devices no longer show it.
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(409);
    expect(await a.laptop.post(KEYS_API.reject(request.id))).toMatchObject({ status: 409, body: { error: { code: "key_request_state" } } });
    expect(await listOf(a.phone)).toEqual([]);
  });

  it("a wrong code is said only of an answer, and a confirmation only once", async () => {
    const a = await account(server, "Rej");
    const request = await ask(a.laptop);
    const state409 = { status: 409, body: { error: { code: "key_request_state" } } };
    expect(await a.laptop.post(KEYS_API.reject(request.id))).toMatchObject(state409);
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
    expect((await a.laptop.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).status).toBe(200);
    expect(await a.laptop.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).toMatchObject(state409);
    expect(await a.laptop.post(KEYS_API.reject(request.id))).toMatchObject(state409);
  });

  it("a new request of the same device replaces its open one", async () => {
    const a = await account(server, "New");
    const first = await ask(a.laptop);
    const second = await ask(a.laptop);
    expect((await listOf(a.phone)).map((r) => r.id)).toEqual([second.id]);
    expect(await a.phone.post(KEYS_API.answer(first.id), { approver_share: b64(32), approver_confirmation: b64(32) })).toMatchObject({
      status: 410,
      body: { error: { code: "key_request_expired" } },
    });
  });

  it("is never served after ten minutes", async () => {
    const a = await account(server, "Old");
    const request = await ask(a.laptop);
    server.clock.advance(KEY_REQUEST_LIFETIME_MS);
    expect(await listOf(a.phone)).toEqual([]);
    expect(await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).toMatchObject({
      status: 410,
      body: { error: { code: "key_request_expired" } },
    });
  });

  it("needs a device key and an account key to ask", async () => {
    const { device, email } = await person(server, "Nok");
    expect(await device.post(KEYS_API.requests, { requester_share: b64(32) })).toMatchObject({
      status: 409,
      body: { error: { code: "device_key_missing" } },
    });
    await keyed(device);
    expect(await device.post(KEYS_API.requests, { requester_share: b64(32) })).toMatchObject({
      status: 409,
      body: { error: { code: "key_epoch_missing" } },
    });
    const other = new Device(server.url);
    await other.login(email);
    expect(await listOf(other)).toEqual([]);
  });
});

describe("the handover", () => {
  it("must be sealed for the asking device by the approving one, of epochs it holds, with the asking device's row", async () => {
    const a = await account(server, "Hnd");
    const request = await confirmed(a);
    const cases: Array<[ApproveKeyRequestInput, string]> = [];
    const variant = (change: (body: ApproveKeyRequestInput) => void, field: string) => {
      const body = handover(a);
      change(body);
      cases.push([body, field]);
    };
    variant(
      (b) => (b.wraps[0] = { ...b.wraps[0], recipient_key_id: a.tabletKey.keyId } as (typeof b.wraps)[0]),
      "wraps.0.recipient_key_id",
    );
    variant((b) => (b.wraps[0] = { ...b.wraps[0], sender_key_id: a.tabletKey.keyId } as (typeof b.wraps)[0]), "wraps.0.sender_key_id");
    variant((b) => (b.wraps[0] = { ...b.wraps[0], epoch: 2 } as (typeof b.wraps)[0]), "wraps.0.epoch");
    variant((b) => (b.roster = { ...b.roster, key_id: a.tabletKey.keyId, public_key: a.tabletKey.publicKey }), "roster.key_id");
    variant((b) => (b.roster = { ...b.roster, public_key: a.phoneKey.publicKey }), "roster.public_key");
    variant((b) => (b.roster = { ...b.roster, added_by_key_id: a.tabletKey.keyId }), "roster.added_by_key_id");
    variant((b) => (b.roster = { ...b.roster, epoch: 2 }), "roster.epoch");
    for (const [body, field] of cases) {
      const res = await a.phone.post(KEYS_API.approve(request.id), body);
      expect([field, res.status, res.body]).toMatchObject([field, 400, { error: { code: "validation", field } }]);
    }
    expect((await stateOf(a.laptop)).wraps).toEqual([]);
    expect((await listOf(a.phone))[0]?.status).toBe("confirmed");
  });

  it("refuses malformed bodies with a 400 naming the field, never a 500", async () => {
    const a = await account(server, "Bad");
    const request = await confirmed(a);
    const good = handover(a);
    const cases: Array<[string, unknown, string | undefined]> = [
      [KEYS_API.requests, {}, "requester_share"],
      [KEYS_API.requests, { requester_share: "short" }, "requester_share"],
      [KEYS_API.requests, { requester_share: `${b64(32).slice(0, 42)}+` }, "requester_share"],
      [KEYS_API.requests, "text", undefined],
      [KEYS_API.answer("not-a-uuid"), { approver_share: b64(32), approver_confirmation: b64(32) }, "id"],
      [KEYS_API.answer(request.id), { approver_share: 7, approver_confirmation: b64(32) }, "approver_share"],
      [KEYS_API.answer(request.id), { approver_share: b64(32) }, "approver_confirmation"],
      [KEYS_API.confirm(request.id), { requester_confirmation: b64(33) }, "requester_confirmation"],
      [KEYS_API.confirm(request.id), undefined, "requester_confirmation"],
      [KEYS_API.reject("not-a-uuid"), undefined, "id"],
      [KEYS_API.approve(request.id), { ...good, handover_confirmation: undefined }, "handover_confirmation"],
      [KEYS_API.approve(request.id), { ...good, handover_confirmation: "x" }, "handover_confirmation"],
      [KEYS_API.approve(request.id), undefined, "wraps"],
      [KEYS_API.approve(request.id), { ...good, wraps: [] }, "wraps"],
      [KEYS_API.approve(request.id), { ...good, wraps: [{ ...good.wraps[0], mode: "psk" }] }, "wraps.0.mode"],
      [KEYS_API.approve(request.id), { ...good, wraps: [good.wraps[0], good.wraps[0]] }, "wraps.1.epoch"],
      [KEYS_API.approve(request.id), { ...good, roster: [good.roster] }, "roster"],
      [KEYS_API.approve(request.id), { ...good, roster: { ...good.roster, kind: "recovery" } }, "roster.kind"],
      [KEYS_API.approve(request.id), { ...good, roster: { ...good.roster, tag: "!" } }, "roster.tag"],
      [KEYS_API.deny("x"), undefined, "id"],
    ];
    for (const [path, body, field] of cases) {
      const res = await (path === KEYS_API.requests ? a.laptop : a.phone).post(path, body);
      const expected = { error: { code: "validation", ...(field ? { field } : {}) } };
      expect([path, JSON.stringify(body)?.slice(0, 80), res.status, res.body]).toMatchObject([
        path,
        JSON.stringify(body)?.slice(0, 80),
        400,
        expected,
      ]);
    }
    expect((await listOf(a.phone))[0]?.status).toBe("confirmed");
  });
});

describe("live", () => {
  it("every device of the account hears each step, a resumed one too, and no other account", async () => {
    const a = await account(server, "Liv");
    const stranger = await person(server, "Other");
    const seq = Number((await server.db.selectFrom("users").select("seq").where("id", "=", a.user.id).executeTakeFirstOrThrow()).seq);
    const live = await ready(a.tablet, seq);
    const strangerLive = await ready(stranger.device);
    const request = await confirmed(a);
    expect((await a.phone.post(KEYS_API.approve(request.id), handover(a))).status).toBe(200);
    const kinds = ["key.requested", "key.request_updated", "key.request_updated", "key.request_updated"];
    await live.waitFor((r) => r.filter((m) => m.type === "event").length >= kinds.length);
    const events = live.events().map((m) => m.event);
    expect(events.map((e) => e.kind)).toEqual(kinds);
    expect(events.map((e) => ("request" in e ? e.request.status : undefined))).toEqual(["pending", "answered", "confirmed", "approved"]);
    const resumed = await ready(a.laptop, seq);
    expect(resumed.events()).toEqual(
      // Replayed from the row as it is now: each step shows the approved request.
      live.events().map((m) => ({ ...m, event: { ...m.event, request: (events[3] as { request: KeyRequest }).request } })),
    );
    expect(strangerLive.events()).toEqual([]);
    for (const socket of [live, resumed, strangerLive]) socket.close();
  });
});

describe("asking is limited", () => {
  it("to ten requests per device in ten minutes", async () => {
    const a = await account(server, "Lim");
    for (let i = 0; i < 10; i++) await ask(a.laptop);
    expect(await a.laptop.post(KEYS_API.requests, { requester_share: b64(32) })).toMatchObject({
      status: 429,
      body: { error: { code: "rate_limited" } },
    });
    // Another device of the account is counted on its own.
    const desk = new Device(server.url);
    await desk.login(a.email);
    await keyed(desk);
    await ask(desk);
  });
});

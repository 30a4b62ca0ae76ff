/**
 * Who may take each step of a locked device's check-code request (docs/protocol/encryption.md, "Approving a device"), and who may end it: only a
 * holder of the current key answers, only the asking device confirms, only the answering one approves, another account
 * touches nothing, and a denial stops the request or takes its handover back.
 */
import { KEYS_API, type KeyRequest } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, keyed } from "../../testing/key-material.ts";
import { account, ask, confirmed, handover, listOf } from "../../testing/key-request-steps.ts";
import { stateOf } from "../../testing/key-state.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

describe("who may take each step", () => {
  it("only a device holding the current key answers, and never the asking one", async () => {
    const a = await account(server, "Who");
    const fourth = new Device(server.url);
    await fourth.login(a.email);
    await keyed(fourth);
    const request = await ask(a.laptop);
    for (const device of [a.laptop, fourth]) {
      expect(await device.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).toMatchObject({
        status: 403,
        body: { error: { code: "forbidden" } },
      });
    }
    expect((await listOf(a.phone))[0]?.status).toBe("pending");
  });

  it("only the asking device confirms, only the answering one approves", async () => {
    const a = await account(server, "Ord");
    const request = await ask(a.laptop);
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
    for (const device of [a.phone, a.tablet]) {
      expect((await device.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).status).toBe(403);
    }
    expect((await a.laptop.post(KEYS_API.confirm(request.id), { requester_confirmation: b64(32) })).status).toBe(200);
    const fromTablet = handover(a);
    for (const w of fromTablet.wraps) w.sender_key_id = a.tabletKey.keyId;
    fromTablet.roster.added_by_key_id = a.tabletKey.keyId;
    for (const [device, body] of [
      [a.tablet, fromTablet],
      [a.laptop, handover(a)],
    ] as const) {
      expect((await device.post(KEYS_API.approve(request.id), body)).status).toBe(403);
    }
    expect((await stateOf(a.laptop)).wraps).toEqual([]);
  });

  it("another account neither sees nor touches the request", async () => {
    const a = await account(server, "Own");
    const request = await ask(a.laptop);
    const stranger = await account(server, "Str");
    expect(await listOf(stranger.phone)).toEqual([]);
    for (const [path, body] of [
      [KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) }],
      [KEYS_API.confirm(request.id), { requester_confirmation: b64(32) }],
      [KEYS_API.approve(request.id), handover(a)],
      [KEYS_API.deny(request.id), undefined],
    ] as const) {
      expect(await stranger.phone.post(path, body)).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    }
    expect((await listOf(a.phone))[0]?.status).toBe("pending");
    const anonymous = new Device(server.url);
    expect((await anonymous.get(KEYS_API.requests)).status).toBe(401);
    expect((await anonymous.post(KEYS_API.requests, { requester_share: b64(32) })).status).toBe(401);
  });
});

describe("denying", () => {
  it("any keyed device denies a pending request; then nobody answers it", async () => {
    const a = await account(server, "Den");
    const request = await ask(a.laptop);
    const denied = await a.tablet.post<{ request: KeyRequest }>(KEYS_API.deny(request.id));
    expect(denied).toMatchObject({ status: 200, body: { request: { status: "denied" } } });
    expect(await listOf(a.phone)).toEqual([]);
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(409);
  });

  it("once answered, only the two sides end it", async () => {
    const a = await account(server, "Two");
    const request = await ask(a.laptop);
    expect((await a.phone.post(KEYS_API.answer(request.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
    expect((await a.tablet.post(KEYS_API.deny(request.id))).status).toBe(403);
    expect((await a.phone.post(KEYS_API.deny(request.id))).status).toBe(200);
    const again = await ask(a.laptop);
    expect((await a.phone.post(KEYS_API.answer(again.id), { approver_share: b64(32), approver_confirmation: b64(32) })).status).toBe(200);
    expect((await a.laptop.post(KEYS_API.deny(again.id))).status).toBe(200);
    expect(await listOf(a.phone)).toEqual([]);
  });

  it("the asking device's No after the approval takes the handover back", async () => {
    const a = await account(server, "NoA");
    const request = await confirmed(a);
    expect((await a.phone.post(KEYS_API.approve(request.id), handover(a))).status).toBe(200);
    expect((await stateOf(a.laptop)).wraps).toHaveLength(1);
    // The approver cannot take it back; the asking device can.
    expect((await a.phone.post(KEYS_API.deny(request.id))).status).toBe(403);
    expect((await a.laptop.post(KEYS_API.deny(request.id))).status).toBe(200);
    const state = await stateOf(a.laptop);
    expect(state.wraps).toEqual([]);
    expect(state.roster.map((r) => r.key_id)).not.toContain(a.laptopKey.keyId);
    expect((await stateOf(a.phone)).wraps).toHaveLength(1);
  });
});

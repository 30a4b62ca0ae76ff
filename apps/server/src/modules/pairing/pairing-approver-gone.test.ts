/**
 * Issue 42, point 1: a QR pairing approved (with its key handover) just before its approver is signed out, or the
 * account is disabled, must not sign the waiting device in afterwards; and a session of a disabled account is refused.
 */
import {
  ADMIN_API,
  API,
  DEVICES_API,
  type DevicesResponse,
  KEYS_API,
  PAIRING_API,
  type PairingHandover,
  type PairingRequestCreated,
  RESET_PASSWORD_API,
  SETTINGS_API,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, epochBody, type Key, keyed, newKey } from "../../testing/key-material.ts";
import { PairWaiter } from "../../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { SESSION_CACHE_MS } from "../accounts/sessions.repository.ts";

let server: TestServer;
let admin: Device;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
  // The installation's first account is its admin.
  admin = new Device(server.url);
  await admin.register("Ada Admin", "ada.approvers@example.com");
});
afterAll(() => server.close());

let accounts = 0;

/**
 * An account with two devices holding its key (epoch 1): `phone` is the one an attacker got hold of; `owner` is the
 * person's own other device.
 */
async function account(): Promise<{ user: User; phone: Device; phoneKey: Key; phoneSessionId: string; owner: Device }> {
  accounts += 1;
  const email = `approver${accounts}@example.com`;
  const phone = new Device(server.url);
  const user = await phone.register(`Approver ${accounts}`, email);
  const phoneKey = await keyed(phone);
  // The owner's device holds the key too, as a device that may sign out the account's keyed devices does.
  const owner = new Device(server.url);
  await owner.login(email);
  const ownerKey = await keyed(owner);
  expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey, { others: [ownerKey] }))).status).toBe(201);
  const devices = await phone.get<DevicesResponse>(DEVICES_API.list);
  const phoneSessionId = devices.body.devices.find((d) => d.current)?.id ?? "";
  return { user, phone, phoneKey, phoneSessionId, owner };
}

function handoverFor(key: Key, approver: Key): PairingHandover {
  return {
    wraps: [{ epoch: 1, recipient_key_id: key.keyId, sender_key_id: approver.keyId, mode: "psk", enc: b64(32), ciphertext: b64(48) }],
    roster: { epoch: 1, key_id: key.keyId, public_key: key.publicKey, kind: "device", added_by_key_id: approver.keyId, tag: b64(32) },
  };
}

/** A new device asks by QR code with its key, the phone approves with the handover, and the new device gets its token. */
async function approvedPairing(phone: Device, phoneKey: Key) {
  const laptop = new Device(server.url);
  const laptopKey = newKey();
  const asked = await laptop.post<PairingRequestCreated>(PAIRING_API.requests, { public_key: laptopKey.publicKey, key_proof: b64(32) });
  expect(asked.status).toBe(201);
  const request = asked.body;
  const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
  await waiter.next("waiting");
  expect((await phone.post(PAIRING_API.approve(request.code), { handover: handoverFor(laptopKey, phoneKey) })).status).toBe(204);
  const { token } = await waiter.next("approved");
  return { laptop, laptopKey, exchange: { request_id: request.request_id, secret: request.secret, token } };
}

const sessionsOf = async (userId: string) =>
  (await server.db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute()).map((r) => r.id);
const wrapsFor = async (key: Key) => server.db.selectFrom("key_wraps").select("epoch").where("recipient_key_id", "=", key.keyId).execute();

type Account = Awaited<ReturnType<typeof account>>;

const removals: Array<[string, (a: Account) => Promise<void>]> = [
  ["the approving device signs itself out", async ({ phone }) => expect((await phone.post(API.logout)).status).toBe(204)],
  [
    "the owner signs the approving device out from the list",
    async ({ owner, phoneSessionId }) => expect((await owner.request("DELETE", DEVICES_API.one(phoneSessionId))).status).toBe(204),
  ],
  [
    "the owner uses Sign out all other devices",
    async ({ owner }) => expect((await owner.post(DEVICES_API.signOutOthers)).body).toEqual({ signed_out: 1 }),
  ],
  [
    "the owner changes the password",
    async ({ owner }) => {
      const body = { current_password: "correct horse", password: "new horse 42", confirm_password: "new horse 42" };
      expect((await owner.request("PUT", SETTINGS_API.password, body)).status).toBe(200);
    },
  ],
  [
    "the owner resets the password with a link",
    async ({ user }) => {
      const link = await admin.post<{ url: string }>(ADMIN_API.passwordReset(user.id));
      const token = link.body.url.split("#")[1] ?? "";
      const reset = await new Device(server.url).post(RESET_PASSWORD_API, {
        token,
        password: "new horse 42",
        confirm_password: "new horse 42",
      });
      expect(reset.status).toBe(200);
    },
  ],
  [
    "the admin disables the account",
    async ({ user }) => expect((await admin.request("PUT", ADMIN_API.disabled(user.id))).status).toBe(200),
  ],
];

describe("a QR pairing approved before its approver is gone", () => {
  it.each(removals)("does not sign in after %s: no session, no key wrap", async (_what, remove) => {
    const a = await account();
    const { laptop, laptopKey, exchange } = await approvedPairing(a.phone, a.phoneKey);
    await remove(a);
    const before = await sessionsOf(a.user.id);

    const res = await laptop.post(PAIRING_API.exchange, exchange);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: "login_failed" } });
    expect(laptop.cookie).toBe("");
    expect((await laptop.get(API.me)).status).toBe(401);
    expect(await sessionsOf(a.user.id)).toEqual(before);
    expect(await wrapsFor(laptopKey)).toEqual([]);
  });

  it("tells a device still waiting for its token that it failed once the approver signed out", async () => {
    const a = await account();
    const laptop = new Device(server.url);
    const request = (await laptop.post<PairingRequestCreated>(PAIRING_API.requests)).body;
    expect((await a.phone.post(PAIRING_API.approve(request.code))).status).toBe(204);
    expect((await a.phone.post(API.logout)).status).toBe(204);
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("failed");
  });
});

describe("a session of a disabled account", () => {
  it("gets 401 on read and on send, even if it was made as the account was being disabled", async () => {
    const a = await account();
    expect((await a.owner.get(API.me)).status).toBe(200);
    // A session that outlived the sign-out of every device (made at the same moment): only the account says no.
    await server.db.updateTable("users").set({ disabled_at: server.clock.now() }).where("id", "=", a.user.id).execute();
    server.clock.advance(SESSION_CACHE_MS + 1);

    expect((await a.owner.get(API.me)).status).toBe(401);
    expect((await a.owner.get(API.days)).status).toBe(401);
    expect((await a.owner.post(API.messages, textMessage("still here", server.clock.now()))).status).toBe(401);
  });
});

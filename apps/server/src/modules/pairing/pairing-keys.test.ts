import {
  KEYS_API,
  PAIRING_API,
  type PairingHandover,
  type PairingJoined,
  type PairingOfferCreated,
  type PairingRequestCreated,
  type PairingRequestDetails,
  type User,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysOf } from "../../testing/key-devices.ts";
import { b64, type Key, newKey } from "../../testing/key-material.ts";
import { PairWaiter } from "../../testing/pair-waiter.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

let users = 0;
/** A signed-in device with its key and the account's epoch 1 (wrapped for itself), as the app makes them. */
async function keyedDevice(): Promise<{ device: Device; user: User; key: Key }> {
  const device = new Device(server.url);
  users += 1;
  const user = await device.register(`Keyholder ${users}`, `keyholder${users}@example.com`);
  const key = newKey();
  expect((await device.request("PUT", KEYS_API.device, { public_key: key.publicKey })).status).toBe(200);
  const epoch = await device.post(KEYS_API.epochs, {
    epoch: 1,
    expected: null,
    reason: "first",
    wraps: [{ epoch: 1, recipient_key_id: key.keyId, sender_key_id: key.keyId, mode: "auth", enc: b64(32), ciphertext: b64(48) }],
    roster: [{ epoch: 1, key_id: key.keyId, public_key: key.publicKey, kind: "device", added_by_key_id: null, tag: b64(32) }],
  });
  expect(epoch.status).toBe(201);
  return { device, user, key };
}

const keyBody = (key: Key) => ({ public_key: key.publicKey, key_proof: b64(32) });

function handoverFor(key: Key, approver: Key, epochs = [1]): PairingHandover {
  return {
    wraps: epochs.map((epoch) => ({
      epoch,
      recipient_key_id: key.keyId,
      sender_key_id: approver.keyId,
      mode: "psk" as const,
      enc: b64(32),
      ciphertext: b64(48),
    })),
    roster: { epoch: 1, key_id: key.keyId, public_key: key.publicKey, kind: "device", added_by_key_id: approver.keyId, tag: b64(32) },
  };
}

async function ask(body?: unknown): Promise<{ device: Device; request: PairingRequestCreated }> {
  const device = new Device(server.url);
  const res = await device.request<PairingRequestCreated>("POST", PAIRING_API.requests, body);
  expect(res.status).toBe(201);
  return { device, request: res.body };
}

/** Waits for the approval and exchanges its token: the new device is signed in. */
async function signIn(device: Device, request: { request_id: string; secret: string }, waiter: PairWaiter): Promise<void> {
  const { token } = await waiter.next("approved");
  const res = await device.post(PAIRING_API.exchange, { request_id: request.request_id, secret: request.secret, token });
  expect(res.status).toBe(200);
}

describe("QR pairing hands the account's key to the new device", () => {
  it("login panel: the key and proof reach the approver; Approve's handover lands as the new session's wraps and roster row", async () => {
    const { device: phone, key: phoneKey } = await keyedDevice();
    const laptopKey = newKey();
    const sent = keyBody(laptopKey);
    const { device: laptop, request } = await ask(sent);
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");

    const details = await phone.get<{ request: PairingRequestDetails }>(PAIRING_API.request(request.code));
    expect(details.body.request).toMatchObject({ request_id: request.request_id, public_key: sent.public_key, key_proof: sent.key_proof });

    const handover = handoverFor(laptopKey, phoneKey);
    expect((await phone.post(PAIRING_API.approve(request.code), { handover })).status).toBe(204);
    const stored = await server.db
      .selectFrom("pairing_requests")
      .select("handover")
      .where("id", "=", request.request_id)
      .executeTakeFirst();
    expect(JSON.parse(stored?.handover ?? "null")).toEqual(handover);

    await signIn(laptop, request, waiter);
    const keys = await keysOf(laptop);
    expect(keys.key_id).toBe(laptopKey.keyId);
    expect(keys.wraps).toEqual([
      expect.objectContaining({
        epoch: 1,
        recipient_key_id: laptopKey.keyId,
        sender_key_id: phoneKey.keyId,
        mode: "psk",
        ...pick(handover.wraps),
      }),
    ]);
    expect(keys.roster.find((row) => row.key_id === laptopKey.keyId)).toMatchObject({
      epoch: 1,
      public_key: laptopKey.publicKey,
      added_by_key_id: phoneKey.keyId,
      tag: handover.roster.tag,
    });
    // The handover leaves the pairing row once it is moved.
    const after = await server.db.selectFrom("pairing_requests").select("handover").where("id", "=", request.request_id).executeTakeFirst();
    expect(after?.handover).toBeNull();
    // The approver now counts the new device among those holding the current key.
    expect((await keysOf(phone)).other_devices_with_current_key).toBe(1);
  });

  it("add a device: the claimed message carries the key; the offer's approval hands over", async () => {
    const { device: laptop, key: laptopKey } = await keyedDevice();
    const offer = (await laptop.post<PairingOfferCreated>(PAIRING_API.offers)).body;
    const watcher = await PairWaiter.watch(server.url, offer.offer_id, laptop.cookie);
    await watcher.next("waiting");

    const phone = new Device(server.url);
    const phoneKey = newKey();
    const sent = keyBody(phoneKey);
    const joined = await phone.post<PairingJoined>(PAIRING_API.join(offer.code), sent);
    expect(joined.status).toBe(201);
    const { request } = await watcher.next("claimed");
    expect(request).toMatchObject({ request_id: offer.offer_id, public_key: sent.public_key, key_proof: sent.key_proof });

    const waiter = await PairWaiter.open(server.url, joined.body.request_id, joined.body.secret);
    await waiter.next("waiting");
    expect((await laptop.post(PAIRING_API.approveOffer(offer.offer_id), { handover: handoverFor(phoneKey, laptopKey) })).status).toBe(204);
    await signIn(phone, joined.body, waiter);
    const keys = await keysOf(phone);
    expect(keys).toMatchObject({ key_id: phoneKey.keyId, epoch: 1 });
    expect(keys.wraps.map((w) => [w.epoch, w.mode])).toEqual([[1, "psk"]]);
  });

  it("without a handover (no key to give, or an older app) the new session still gets its key and is locked", async () => {
    const { device: phone } = await keyedDevice();
    const laptopKey = newKey();
    const { device: laptop, request } = await ask(keyBody(laptopKey));
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");
    expect((await phone.post(PAIRING_API.approve(request.code))).status).toBe(204);
    await signIn(laptop, request, waiter);
    expect(await keysOf(laptop)).toMatchObject({ key_id: laptopKey.keyId, epoch: 1, wraps: [] });
  });

  it("a request without a key is as before: details say null, the new session has no key", async () => {
    const { device: phone } = await keyedDevice();
    const { device: laptop, request } = await ask();
    const details = await phone.get<{ request: PairingRequestDetails }>(PAIRING_API.request(request.code));
    expect(details.body.request).toMatchObject({ public_key: null, key_proof: null });
    const waiter = await PairWaiter.open(server.url, request.request_id, request.secret);
    await waiter.next("waiting");
    const refused = await phone.post(PAIRING_API.approve(request.code), { handover: handoverFor(newKey(), newKey()) });
    expect(refused).toMatchObject({ status: 400, body: { error: { field: "handover" } } });
    expect((await phone.post(PAIRING_API.approve(request.code))).status).toBe(204);
    await signIn(laptop, request, waiter);
    expect((await keysOf(laptop)).key_id).toBeNull();
  });
});

describe("what the server refuses", () => {
  it("a malformed key or proof, naming the field", async () => {
    const device = new Device(server.url);
    const cases: Array<[unknown, string]> = [
      [{ public_key: "not base64!", key_proof: b64(32) }, "public_key"],
      [{ public_key: b64(31), key_proof: b64(32) }, "public_key"],
      [{ public_key: b64(32) }, "key_proof"],
      [{ key_proof: b64(32) }, "public_key"],
      [{ public_key: b64(32), key_proof: b64(16) }, "key_proof"],
    ];
    for (const [body, field] of cases) {
      const res = await device.request("POST", PAIRING_API.requests, body);
      expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: { field } } });
    }
    const { device: laptop } = await keyedDevice();
    const offer = (await laptop.post<PairingOfferCreated>(PAIRING_API.offers)).body;
    const joined = await device.post(PAIRING_API.join(offer.code), { public_key: b64(32), key_proof: "x" });
    expect(joined).toMatchObject({ status: 400, body: { error: { field: "key_proof" } } });
  });

  it("a handover that is not the approver's to give, naming the field; nothing is stored and the request stays pending", async () => {
    const { device: phone, key: phoneKey } = await keyedDevice();
    const { key: strangerKey } = await keyedDevice();
    const laptopKey = newKey();
    const { request } = await ask(keyBody(laptopKey));
    const good = handoverFor(laptopKey, phoneKey);
    const [wrap] = good.wraps as [PairingHandover["wraps"][number]];
    const cases: Array<[PairingHandover, string]> = [
      [{ ...good, wraps: [{ ...wrap, mode: "auth" }] }, "handover.wraps.0.mode"],
      [handoverFor(newKey(), phoneKey), "handover.roster.public_key"],
      [{ ...good, roster: { ...good.roster, added_by_key_id: strangerKey.keyId } }, "handover.roster.added_by_key_id"],
      [{ ...good, wraps: [{ ...wrap, sender_key_id: strangerKey.keyId }] }, "handover.wraps.0.sender_key_id"],
      // Epoch 2 is not the account's, nor held by the approver.
      [handoverFor(laptopKey, phoneKey, [1, 2]), "handover.wraps.1.epoch"],
      [{ ...good, roster: { ...good.roster, epoch: 2 } }, "handover.roster.epoch"],
      [{ ...good, wraps: Array.from({ length: 257 }, (_, i) => ({ ...wrap, epoch: i + 1 })) }, "handover.wraps"],
    ];
    for (const [handover, field] of cases) {
      const res = await phone.post(PAIRING_API.approve(request.code), { handover });
      expect(res, field).toMatchObject({ status: 400, body: { error: { field } } });
    }
    const details = await phone.get<{ request: PairingRequestDetails }>(PAIRING_API.request(request.code));
    expect(details.status).toBe(200);
    expect(await server.db.selectFrom("key_wraps").select("epoch").where("recipient_key_id", "=", laptopKey.keyId).execute()).toEqual([]);
  });

  it("an approver without a key, or whose account already has the asking key, hands nothing over", async () => {
    const device = new Device(server.url);
    users += 1;
    await device.register(`Keyless ${users}`, `keyless${users}@example.com`);
    const laptopKey = newKey();
    const { request } = await ask(keyBody(laptopKey));
    const res = await device.post(PAIRING_API.approve(request.code), { handover: handoverFor(laptopKey, newKey()) });
    expect(res).toMatchObject({ status: 400, body: { error: { field: "handover" } } });

    // A request that asks with the approver's own key (a copied key) is refused as PUT /api/keys/device would.
    const { device: phone, key: phoneKey } = await keyedDevice();
    const copied = await ask(keyBody(phoneKey));
    const twin = await phone.post(PAIRING_API.approve(copied.request.code), { handover: handoverFor(phoneKey, phoneKey) });
    expect(twin).toMatchObject({ status: 409, body: { error: { code: "device_key_in_use" } } });
  });
});

const pick = ([wrap]: PairingHandover["wraps"]) => ({ enc: wrap?.enc, ciphertext: wrap?.ciphertext });

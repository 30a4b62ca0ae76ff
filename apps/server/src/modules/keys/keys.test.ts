/**
 * The server's key state (docs/protocol/encryption.md, "Keys"): a device's public key set once, what GET /api/keys tells a device,
 * and key rows leaving with sessions and accounts. Making epochs: key-epochs.test.ts.
 */
import { randomBytes } from "node:crypto";
import { API, DEVICES_API, KEYS_API, SETTINGS_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_LIFETIME_MS } from "../../http/auth.ts";
import { person } from "../../testing/discussion-api.ts";
import { tablesNaming } from "../../testing/every-row.ts";
import { epochBody, keyed, newKey } from "../../testing/key-material.ts";
import { keyRowsOf, secondDevice, sessionIdOf, stateOf } from "../../testing/key-state.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { SESSION_CACHE_MS } from "../accounts/sessions.repository.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

describe("a device's public key", () => {
  it("is set once: the same key again answers the same, another one is refused", async () => {
    const { device } = await person(server, "Kim");
    const key = await keyed(device);
    expect((await stateOf(device)).key_id).toBe(key.keyId);
    const again = await device.request("PUT", KEYS_API.device, { public_key: key.publicKey });
    expect(again).toMatchObject({ status: 200, body: { key_id: key.keyId, public_key: key.publicKey } });
    const other = await device.request("PUT", KEYS_API.device, { public_key: newKey().publicKey });
    expect(other).toMatchObject({ status: 409, body: { error: { code: "device_key_set", field: "public_key" } } });
    expect((await stateOf(device)).key_id).toBe(key.keyId);
  });

  it("is one device's only: another device of the account cannot take it", async () => {
    const { device, email } = await person(server, "Kai");
    const key = await keyed(device);
    const laptop = await secondDevice(server, email);
    const res = await laptop.request("PUT", KEYS_API.device, { public_key: key.publicKey });
    expect(res).toMatchObject({ status: 409, body: { error: { code: "device_key_in_use" } } });
    expect((await stateOf(laptop)).key_id).toBeNull();
  });

  it("must be a raw key in base64url: anything else is a 400 naming public_key", async () => {
    const { device } = await person(server, "Bad");
    const raw = randomBytes(32).toString("base64url");
    const bodies: unknown[] = [
      undefined,
      {},
      { public_key: 42 },
      { public_key: "" },
      { public_key: "a".repeat(101) },
      { public_key: `${raw.slice(0, 42)}+` },
      { public_key: `${raw}=` },
      // 33 bytes, and 32 bytes spelt with stray bits in the last character.
      { public_key: randomBytes(33).toString("base64url") },
      { public_key: `${raw.slice(0, 42)}${raw.endsWith("B") ? "C" : "B"}` },
    ];
    for (const body of bodies) {
      const res = await device.request("PUT", KEYS_API.device, body);
      expect([JSON.stringify(body), res.status, res.body]).toMatchObject([
        JSON.stringify(body),
        400,
        { error: { code: "validation", field: "public_key" } },
      ]);
    }
    // Not an object at all: nothing to name but the body.
    for (const body of [[raw], "just text"]) {
      expect(await device.request("PUT", KEYS_API.device, body)).toMatchObject({ status: 400, body: { error: { code: "validation" } } });
    }
    expect((await stateOf(device)).key_id).toBeNull();
  });
});

describe("GET /api/keys", () => {
  it("tells a new account's device it has no key and the account no epoch", async () => {
    const { device } = await person(server, "New");
    expect(await stateOf(device)).toEqual({
      session_id: await sessionIdOf(device),
      key_id: null,
      epoch: null,
      rotation_due: false,
      wraps: [],
      roster: [],
      other_devices_with_current_key: 0,
      holders: [],
    });
  });

  it("asks for a session", async () => {
    const anonymous = new Device(server.url);
    for (const [method, path, body] of [
      ["GET", KEYS_API.keys, undefined],
      ["PUT", KEYS_API.device, { public_key: newKey().publicKey }],
      ["POST", KEYS_API.epochs, epochBody(newKey())],
    ] as const) {
      expect((await anonymous.request(method, path, body)).status).toBe(401);
    }
  });
});

describe("key rows leave", () => {
  it("with a device that signs out: its wraps go, the others' stay", async () => {
    const { device: phone, user, email } = await person(server, "Out");
    const laptop = await secondDevice(server, email);
    const tablet = await secondDevice(server, email);
    const [phoneKey, laptopKey, tabletKey] = [await keyed(phone), await keyed(laptop), await keyed(tablet)];
    expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey, { others: [laptopKey, tabletKey] }))).status).toBe(201);
    expect((await stateOf(phone)).other_devices_with_current_key).toBe(2);

    expect((await laptop.post(API.logout)).status).toBe(204);
    expect((await phone.request("DELETE", DEVICES_API.one(await sessionIdOf(tablet)))).status).toBe(204);
    const rows = await keyRowsOf(server, user.id);
    expect(rows.wraps.map((w) => w.recipient_key_id)).toEqual([phoneKey.keyId]);
    // The roster is the epoch's history: it keeps who was trusted.
    expect(rows.roster).toHaveLength(3);
    expect((await stateOf(phone)).other_devices_with_current_key).toBe(0);
  });

  it("with a session that expired unused", async () => {
    const { device: phone, user, email } = await person(server, "Idle");
    const laptop = await secondDevice(server, email);
    const [phoneKey, laptopKey] = [await keyed(phone), await keyed(laptop)];
    expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey, { others: [laptopKey] }))).status).toBe(201);
    const laptopId = await sessionIdOf(laptop);
    await server.db
      .updateTable("sessions")
      .set({ last_seen_at: server.clock.now() - SESSION_LIFETIME_MS - 1 })
      .where("id", "=", laptopId)
      .execute();
    // Past the cached look-up, so the laptop's next request reads its session again and finds it over.
    server.clock.advance(SESSION_CACHE_MS + 1);
    expect((await laptop.get(KEYS_API.keys)).status).toBe(401);
    expect((await keyRowsOf(server, user.id)).wraps.map((w) => w.recipient_key_id)).toEqual([phoneKey.keyId]);
  });

  it("with the account: nothing of its keys remains", async () => {
    const { device, user, email } = await person(server, "Gone");
    const laptop = await secondDevice(server, email);
    const [key, laptopKey] = [await keyed(device), await keyed(laptop)];
    expect((await device.post(KEYS_API.epochs, epochBody(key, { others: [laptopKey] }))).status).toBe(201);
    expect((await device.post(KEYS_API.epochs, epochBody(key, { epoch: 2, others: [laptopKey] }))).status).toBe(201);

    const res = await device.request("DELETE", SETTINGS_API.account, { email, password: "correct horse" });
    expect(res.status).toBe(204);
    expect(await keyRowsOf(server, user.id)).toEqual({ epochs: [], wraps: [], roster: [] });
    expect(await tablesNaming(server, [user.id, key.keyId, laptopKey.keyId])).toEqual([]);
  });
});

/**
 * The account's epochs (docs/protocol/encryption.md, "Keys"): the first one and the race for it, who sees which wraps, the live
 * `key.epoch_created`, another account's, and the next one by rotation or start over.
 */
import { DEVICES_API, KEYS_API, type KeysState, type StoredKeyWrap } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person, ready } from "../../testing/discussion-api.ts";
import { epochBody, keyed, newKey, rosterRow, wrapFor } from "../../testing/key-material.ts";
import { byKey, keyRowsOf, secondDevice, sessionIdOf, stateOf } from "../../testing/key-state.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

describe("the first epoch", () => {
  it("is made by the first device, wrapped for it and another; each device sees only its own wraps", async () => {
    const { device: phone, user, email } = await person(server, "Fay");
    const laptop = await secondDevice(server, email);
    const phoneKey = await keyed(phone);
    const laptopKey = await keyed(laptop);
    const body = epochBody(phoneKey, { others: [laptopKey] });

    const res = await phone.post<KeysState>(KEYS_API.epochs, body);
    expect(res.status).toBe(201);
    const sealedForPhone = { ...body.wraps[0], sender_key_id: null, created_at: server.clock.now() };
    const sealedForLaptop = { ...body.wraps[1], created_at: server.clock.now() };
    const roster = byKey(body.roster.map((r) => ({ added_by_key_id: null, ...r, added_at: server.clock.now() })));
    expect({ ...res.body, roster: byKey(res.body.roster) }).toEqual({
      session_id: await sessionIdOf(phone),
      key_id: phoneKey.keyId,
      epoch: 1,
      rotation_due: false,
      wraps: [sealedForPhone],
      roster,
      other_devices_with_current_key: 1,
      holders: [phoneKey.keyId, laptopKey.keyId].sort(),
    });
    expect(await stateOf(laptop)).toEqual({
      session_id: await sessionIdOf(laptop),
      key_id: laptopKey.keyId,
      epoch: 1,
      rotation_due: false,
      wraps: [sealedForLaptop],
      roster,
      other_devices_with_current_key: 1,
      holders: [phoneKey.keyId, laptopKey.keyId].sort(),
    });
    const rows = await keyRowsOf(server, user.id);
    expect(rows.epochs).toEqual([expect.objectContaining({ epoch: 1, reason: "first", created_by_session_id: await sessionIdOf(phone) })]);

    // The same epoch again, from either device, is taken.
    const again = await laptop.post(KEYS_API.epochs, epochBody(laptopKey));
    expect(again).toMatchObject({ status: 409, body: { error: { code: "key_epoch_taken" } } });
    expect((await keyRowsOf(server, user.id)).wraps).toHaveLength(2);
  });

  it("a device without a key, or without its own wrap and roster row, cannot make it", async () => {
    const { device, email } = await person(server, "Nok");
    const key = newKey();
    expect(await device.post(KEYS_API.epochs, epochBody(key))).toMatchObject({
      status: 409,
      body: { error: { code: "device_key_missing" } },
    });
    const mine = await keyed(device);
    const laptop = await secondDevice(server, email);
    const laptopKey = await keyed(laptop);
    // Only the laptop's wrap (and roster), posted by the phone.
    expect(await device.post(KEYS_API.epochs, epochBody(laptopKey))).toMatchObject({
      status: 400,
      body: { error: { code: "validation", field: "roster" } },
    });
    const noOwnWrap = epochBody(mine, { others: [laptopKey] });
    noOwnWrap.wraps = noOwnWrap.wraps.slice(1);
    expect(await device.post(KEYS_API.epochs, noOwnWrap)).toMatchObject({ status: 400, body: { error: { field: "wraps" } } });
    expect((await stateOf(device)).epoch).toBeNull();
  });

  it("refuses a malformed body with a 400 naming the problem, never a 500", async () => {
    const { device } = await person(server, "Odd");
    const key = await keyed(device);
    const other = newKey();
    const good = epochBody(key);
    const cases: Array<[unknown, string | undefined]> = [
      [undefined, "epoch"],
      ["text", undefined],
      [[good], undefined],
      [{ ...good, epoch: 0 }, "epoch"],
      [{ ...good, epoch: 1.5 }, "epoch"],
      [{ ...good, epoch: "1" }, "epoch"],
      [{ ...good, epoch: 2 }, "epoch"],
      [{ ...good, expected: undefined }, "expected"],
      [{ ...good, reason: "rotation" }, "reason"],
      [{ ...good, reason: "because" }, "reason"],
      [{ ...good, wraps: "all" }, "wraps"],
      [{ ...good, wraps: [] }, "wraps"],
      [{ ...good, roster: [] }, "roster"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), epoch: 2 }] }, "wraps.0.epoch"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), mode: "plain" }] }, "wraps.0.mode"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), enc: "not base64url!" }] }, "wraps.0.enc"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), ciphertext: "a".repeat(257) }] }, "wraps.0.ciphertext"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), recipient_key_id: "short" }] }, "wraps.0.recipient_key_id"],
      [{ ...good, wraps: [{ ...wrapFor(1, key), mode: "auth" }] }, "wraps.0.sender_key_id"],
      [{ ...good, wraps: [wrapFor(1, key), wrapFor(1, key)] }, "wraps.1.recipient_key_id"],
      [{ ...good, wraps: [wrapFor(1, key), wrapFor(1, other)] }, "wraps.1.recipient_key_id"],
      [{ ...good, wraps: [wrapFor(1, key, other)] }, "wraps.0.sender_key_id"],
      [{ ...good, roster: [{ ...rosterRow(1, key), kind: "laptop" }] }, "roster.0.kind"],
      // A roster row whose key id is not that of its public key.
      [{ ...good, wraps: [wrapFor(1, other)], roster: [{ ...rosterRow(1, key), key_id: other.keyId }] }, "roster.0.key_id"],
      [{ ...good, roster: [rosterRow(1, key), rosterRow(1, key)] }, "roster.1.key_id"],
      [{ ...good, roster: [{ ...rosterRow(1, key), tag: undefined }] }, "roster.0.tag"],
      [
        {
          ...good,
          wraps: Array.from({ length: 65 }, () => wrapFor(1, newKey())),
          roster: [rosterRow(1, key)],
        },
        "wraps",
      ],
    ];
    for (const [body, field] of cases) {
      const res = await device.post(KEYS_API.epochs, body);
      const expected = { error: { code: "validation", ...(field ? { field } : {}) } };
      const shown = String(JSON.stringify(body)).slice(0, 200);
      expect([shown, res.status, res.body]).toMatchObject([shown, 400, expected]);
    }
    expect(await stateOf(device)).toMatchObject({ epoch: null, wraps: [], roster: [] });
  });

  it("goes to exactly one of two devices racing for it", async () => {
    for (let round = 0; round < 5; round++) {
      const { device: phone, user, email } = await person(server, "Race");
      const laptop = await secondDevice(server, email);
      const [phoneKey, laptopKey] = [await keyed(phone), await keyed(laptop)];
      const answers = await Promise.all([
        phone.post(KEYS_API.epochs, epochBody(phoneKey)),
        laptop.post(KEYS_API.epochs, epochBody(laptopKey)),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ error: { code: "key_epoch_taken" } });
      const rows = await keyRowsOf(server, user.id);
      expect(rows.epochs).toHaveLength(1);
      expect(rows.wraps).toHaveLength(1);
      const winner = answers[0]?.status === 201 ? phoneKey : laptopKey;
      expect(rows.wraps[0]?.recipient_key_id).toBe(winner.keyId);
      expect((await stateOf(phone)).epoch).toBe(1);
    }
  });

  it("reaches the account's other devices live, and a device that resumes later", async () => {
    const { device: phone, user, email } = await person(server, "Liv");
    const laptop = await secondDevice(server, email);
    const tablet = await secondDevice(server, email);
    const phoneKey = await keyed(phone);
    const stranger = await person(server, "Stranger");
    const seq = Number((await server.db.selectFrom("users").select("seq").where("id", "=", user.id).executeTakeFirstOrThrow()).seq);
    const live = await ready(laptop, seq);
    const strangerLive = await ready(stranger.device);

    expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey))).status).toBe(201);
    const event = { kind: "key.epoch_created", epoch: 1, reason: "first", session_id: await sessionIdOf(phone) };
    await live.waitFor((r) => r.some((m) => m.type === "event" && m.event.kind === "key.epoch_created"));
    expect(live.events().map((m) => m.event)).toEqual([event]);
    const resumed = await ready(tablet, seq);
    expect(resumed.events().map((m) => m.event)).toEqual([event]);
    expect(strangerLive.events()).toEqual([]);
    for (const socket of [live, resumed, strangerLive]) socket.close();
  });
});

describe("another account", () => {
  it("never sees this account's keys and cannot make its epochs, even with the same public key", async () => {
    const alice = await person(server, "Alice");
    const aliceKey = await keyed(alice.device);
    expect((await alice.device.post(KEYS_API.epochs, epochBody(aliceKey))).status).toBe(201);
    const before = await keyRowsOf(server, alice.user.id);

    const bob = await person(server, "Bob");
    const same = await bob.device.request("PUT", KEYS_API.device, { public_key: aliceKey.publicKey });
    expect(same.status).toBe(200);
    expect(await stateOf(bob.device)).toMatchObject({ epoch: null, wraps: [], roster: [], other_devices_with_current_key: 0 });
    // Bob's "next epoch" is judged against his own account, which has none.
    const rotation = await bob.device.post(KEYS_API.epochs, epochBody(aliceKey, { epoch: 2 }));
    expect(rotation).toMatchObject({ status: 409, body: { error: { code: "key_epoch_taken" } } });
    // His first epoch is his own.
    expect((await bob.device.post(KEYS_API.epochs, epochBody(aliceKey))).status).toBe(201);
    expect(await keyRowsOf(server, alice.user.id)).toEqual(before);
    const bobState = await stateOf(bob.device);
    expect(bobState.wraps.map((w: StoredKeyWrap) => w.ciphertext)).not.toContain(before.wraps[0]?.ciphertext);
  });
});

describe("the next epoch", () => {
  it("is a rotation only from a device holding the current one; it clears a due rotation", async () => {
    const { device: phone, user, email } = await person(server, "Rot");
    const laptop = await secondDevice(server, email);
    const [phoneKey, laptopKey] = [await keyed(phone), await keyed(laptop)];
    expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey))).status).toBe(201);
    await server.db.updateTable("users").set({ key_rotation_due_at: server.clock.now() }).where("id", "=", user.id).execute();
    expect((await stateOf(laptop)).rotation_due).toBe(true);

    const notHeld = await laptop.post(KEYS_API.epochs, epochBody(laptopKey, { epoch: 2, others: [phoneKey] }));
    expect(notHeld).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const rotated = await phone.post<KeysState>(KEYS_API.epochs, epochBody(phoneKey, { epoch: 2, others: [laptopKey] }));
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ epoch: 2, rotation_due: false });
    expect(rotated.body.wraps.map((w) => w.epoch)).toEqual([1, 2]);
    expect(new Set(rotated.body.roster.map((r) => r.epoch))).toEqual(new Set([1, 2]));
    expect(await stateOf(laptop)).toMatchObject({ epoch: 2, rotation_due: false, other_devices_with_current_key: 1 });
    // A stale device asking for 2 again loses.
    expect((await laptop.post(KEYS_API.epochs, epochBody(laptopKey, { epoch: 2 }))).status).toBe(409);
  });

  it("is a start over only while no other signed-in device holds the current one", async () => {
    const { device: phone, email } = await person(server, "Over");
    const laptop = await secondDevice(server, email);
    const [phoneKey, laptopKey] = [await keyed(phone), await keyed(laptop)];
    expect((await phone.post(KEYS_API.epochs, epochBody(phoneKey))).status).toBe(201);
    expect((await stateOf(laptop)).other_devices_with_current_key).toBe(1);
    const startOver = epochBody(laptopKey, { epoch: 2, reason: "start_over" });
    expect(await laptop.post(KEYS_API.epochs, startOver)).toMatchObject({ status: 409, body: { error: { code: "key_epoch_in_use" } } });

    // The phone signs itself out (the laptop, holding no key, may not sign out the last device that does).
    expect((await phone.request("DELETE", DEVICES_API.one(await sessionIdOf(phone)))).status).toBe(204);
    expect((await stateOf(laptop)).other_devices_with_current_key).toBe(0);
    const res = await laptop.post<KeysState>(KEYS_API.epochs, startOver);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ epoch: 2, wraps: [expect.objectContaining({ epoch: 2, recipient_key_id: laptopKey.keyId })] });
  });
});

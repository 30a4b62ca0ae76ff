/**
 * A malicious server against the real key code (docs/protocol/encryption.md): real devices' keys over HTTP to a real
 * test server, with what the server answers rewritten (`keyDevice`'s `forge`) or its database written, as an operator
 * could. One test per attack: each is refused, with the words the person sees.
 */
import { API, DEVICES_API, type Message, SEALED_TEXT } from "@daysync/shared";
import {
  deriveEpochKeys,
  deriveRecoveryKeys,
  EpochRollbackError,
  keyedSince,
  makeEpochKey,
  makeRecoveryCode,
  openMessage,
  openRecoveryAnchor,
  sealerOf,
  sealTextMessage,
  wrapEpochKey,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KeyDevice, keysOf, recoveryOf, threeKeyedDevices } from "../../testing/key-devices.ts";
import { keyRowsOf } from "../../testing/key-state.ts";
import { startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/** Three devices holding epoch 1; `forgery` rewrites a device's key state (the server turning hostile). */
async function threeDevices(name: string) {
  const { forgeKeys, ...devices } = await threeKeyedDevices(server, name);
  return { ...devices, forgery: forgeKeys };
}

/** Signs `removed` out from `by`'s Devices list, and `by` makes the next epoch at once (what the apps do). */
async function removeFrom(by: KeyDevice, removed: KeyDevice) {
  const session = (await keysOf(removed.device)).session_id;
  await by.keys.noteRemoved([removed.held().keyId]);
  expect((await by.device.request("DELETE", DEVICES_API.one(session))).status).toBe(204);
  return by.keys.rotateNow({ removedKeyIds: [removed.held().keyId] });
}

describe("a hostile server against the account's keys", () => {
  it("rolls the epoch back: the device refuses to seal under it and says so", async () => {
    const { a, c, user, forgery } = await threeDevices("Rollback");
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });

    // The server now calls epoch 1 current again (whose key the removed device C still has).
    forgery.a = (state) => ({ ...state, epoch: 1, rotation_due: false });
    const status = await a.keys.sync();
    expect(status).toMatchObject({ state: "ready", epoch: 1 });
    let refused: unknown;
    try {
      sealerOf(user.id, status);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(EpochRollbackError);
    expect((refused as Error).message).toContain(SEALED_TEXT.epochRolledBack);
  });

  it("lists a removed device as a holder: the rotating device does not wrap the next epoch for it", async () => {
    const { a, b, c, user, forgery } = await threeDevices("Holder");
    const cKey = c.held().keyId;
    // The server keeps the removed device C among the holders of epoch 1 (its roster row there is genuine).
    forgery.a = (state) => (state.holders.includes(cKey) ? state : { ...state, holders: [...state.holders, cKey] });
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });

    const rows = await keyRowsOf(server, user.id);
    const recipients = rows.wraps.filter((w) => Number(w.epoch) === 2).map((w) => w.recipient_key_id);
    expect(recipients).not.toContain(cKey);
    expect(recipients).toEqual(expect.arrayContaining([a.held().keyId, b.held().keyId]));
    expect(rows.roster.filter((r) => Number(r.epoch) === 2).map((r) => r.key_id)).not.toContain(cKey);
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });
  });

  it("hands over epoch n+1 wrapped by a removed device's key: refused, the device does not take that key", async () => {
    const { a, b, c, user, forgery } = await threeDevices("Retired");
    expect(await removeFrom(a, c)).toMatchObject({ state: "ready", epoch: 2 });
    expect(await b.keys.sync()).toMatchObject({ state: "ready", epoch: 2 });

    // C (removed, still holding its private key and epoch 1's) makes an epoch 3 of its own for B; the server serves it.
    const forgedKey = makeEpochKey();
    const wrap = await wrapEpochKey(forgedKey, { userId: user.id, epoch: 3 }, b.held().pair.publicKey, {
      mode: "auth",
      senderKeyPair: c.held().pair,
    });
    const bKey = b.held().keyId;
    const cKey = c.held().keyId;
    forgery.b = (state) => ({
      ...state,
      epoch: 3,
      wraps: [...state.wraps, { epoch: 3, recipient_key_id: bKey, sender_key_id: cKey, mode: "auth", ...wrap, created_at: Date.now() }],
    });
    const status = await b.keys.sync();
    expect(b.held().epochs.has(3)).toBe(false);
    expect(status).toMatchObject({ state: "locked", epoch: 3 });
  });

  it("writes a clear message into the keyed account: it is marked as not sent by the person's devices", async () => {
    const { a, user } = await threeDevices("Clear");
    const status = await a.keys.sync();
    // What the server would serve: a text with no epoch, dated now (after the account was keyed).
    const forged: Message = {
      ...textMessage("wire the money to 12345", server.clock.now()),
      type: "text",
      filename: "",
      file_url: "",
      url: "",
      user_id: user.id,
      date_message_id: "",
      timestamps: server.clock.now(),
    };
    expect(keyedSince(status)).toBeDefined();
    expect(await openMessage(user.id, a.held().epochs, forged, keyedSince(status))).toEqual({ state: "not_encrypted" });
    expect(SEALED_TEXT.notEncrypted).toBe("Not encrypted: not sent by your devices");
  });

  it("after the recovery code is changed, the old code with an old copy of the database opens nothing sent since", async () => {
    const { a, user, code: oldCode } = await threeDevices("Recode");
    // The attacker's copy of the database: the old code's anchor.
    const old = await recoveryOf(a.device);
    if (!old) throw new Error("no recovery code");

    await a.makeCode(await makeRecoveryCode());
    // The server marked the next epoch due with the change; the device makes it (the apps at once, by rotateNow).
    const status = await a.keys.sync();
    expect(status.state).toBe("ready");
    const sealer = sealerOf(user.id, status);
    if (!sealer) throw new Error("cannot seal");
    const sent = textMessage("sent after the code changed", server.clock.now());
    const body = await sealTextMessage(sealer, sent);
    const res = await a.device.post(API.messages, body);
    expect(res.status).toBe(201);
    const stored = (res.body as { message: Message }).message;

    // The old code opens the old anchor's epoch, and nothing later.
    const recovered = await deriveRecoveryKeys(oldCode, user.id);
    const epochKey = await openRecoveryAnchor(recovered.anchorKey, { userId: user.id, epoch: old.anchor_epoch }, old.anchor);
    const epochs = new Map([[old.anchor_epoch, await deriveEpochKeys(epochKey, user.id)]]);
    expect(await openMessage(user.id, epochs, stored)).toEqual({ state: "locked", epoch: sealer.epoch });
    expect(sealer.epoch).toBeGreaterThan(old.anchor_epoch);
  });
});

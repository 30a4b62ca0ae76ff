/**
 * Add a device with the code typed, one code and one round (issue 41): the signed-in device shows `lookup-password`,
 * the new device types it and joins with its share for the password half, the offering device answers with its own
 * password, and its Approve signs the new device in holding the key, through the real server with the real key code.
 */
import { KEY_REQUEST_MAX_FAILURES, PAIRING_EXCHANGE_API, type TypedPairingExchange } from "@daysync/shared";
import { exportPublicKey, generateDeviceKeyPair, keyId, makeApprovalSecret } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedAccount, keysOf } from "../../testing/key-devices.ts";
import { keyRowsOf } from "../../testing/key-state.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { newDeviceJoining, offeringDevice } from "../../testing/typed-pairing.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

const rowOf = (id: string) => server.db.selectFrom("pairing_requests").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** A keyed laptop showing Add a device, and a phone that typed `typed` (the shown code unless given). */
async function laptopAndPhone(
  name: string,
  options: { typed?: (shown: string) => string; forge?: (e: TypedPairingExchange) => TypedPairingExchange } = {},
) {
  const { keyed, user, signIn } = await keyedAccount(server, name);
  const laptop = await offeringDevice(server, keyed.device, user.id, keyed.held(), options.forge);
  const phone = await newDeviceJoining(server, options.typed ? options.typed(laptop.code) : laptop.code);
  const request = await laptop.claimed();
  return { keyed, user, signIn, laptop, phone, request };
}

describe("Add a device, the code typed: one code, one round", () => {
  it("signs the phone in holding the current key, with no second approval", async () => {
    const { keyed, user, laptop, phone, request } = await laptopAndPhone("Offer");
    expect(laptop.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // The server knows only the lookup half: the password half never left the laptop, and the phone never sent it.
    const row = await rowOf(laptop.offer.offer_id);
    expect(row.short_code).toBe(laptop.code.slice(0, 4));
    expect(JSON.stringify(row)).not.toContain(laptop.password);
    expect(request.exchange?.requester_key_id).toBe(phone.held.keyId);

    expect(await laptop.answer()).toEqual({ step: "waiting" });
    expect(await phone.follow()).toEqual({ step: "confirmed" });
    expect(await laptop.look()).toEqual({ step: "confirmed" });
    expect((await laptop.approver.approve()).status).toBe("approved");

    const { accept, storage } = await phone.signIn(user.id);
    expect(await accept()).toBe(true);
    expect([...(storage.held?.epochs.keys() ?? [])]).toEqual([1]);
    const phoneKeys = await keysOf(phone.device);
    expect(phoneKeys.epoch).toBe(1);
    expect(phoneKeys.wraps.filter((w) => w.recipient_key_id === phone.held.keyId)).toEqual([
      expect.objectContaining({ epoch: 1, mode: "auth", sender_key_id: keyed.held().keyId }),
    ]);
  });

  it(`a wrong password half ${KEY_REQUEST_MAX_FAILURES} times ends the request on both sides, and nobody is signed in`, async () => {
    const wrong = (shown: string) => `${shown.slice(0, 5)}${shown.endsWith("0000") ? "1111" : "0000"}`;
    const { laptop, phone } = await laptopAndPhone("OfferWrong", { typed: wrong });
    for (const wrongCodes of [1, 2, 3]) {
      expect(await laptop.answer()).toEqual({ step: "waiting" });
      const step = await phone.follow();
      if (wrongCodes < 3) {
        expect(step).toEqual({ step: "show", code: phone.requester.password, wrongCodes });
        expect(await laptop.look()).toEqual({ step: "wrong_code", wrongCodes, left: 3 - wrongCodes });
      } else {
        expect(step).toEqual({ step: "ended", status: "failed" });
        expect(await laptop.look()).toEqual({ step: "ended", status: "failed" });
      }
    }
    expect((await rowOf(laptop.offer.offer_id)).status).toBe("failed");
    expect(await phone.waiter.next("failed")).toEqual({ type: "failed" });
  });

  it("only the offering session may look at, answer or end it: another of the same account is told there is none", async () => {
    const { signIn, laptop } = await laptopAndPhone("OfferOther");
    const other = await signIn();
    const id = laptop.offer.offer_id;
    const secret = makeApprovalSecret("0000", (await laptop.read()).requester_public_key);
    expect((await other.device.get(PAIRING_EXCHANGE_API.exchange(id))).status).toBe(404);
    const answer = { approver_share: secret.share, approver_confirmation: "A".repeat(43) };
    expect((await other.device.post(PAIRING_EXCHANGE_API.answer(id), answer)).status).toBe(404);
    expect((await other.device.post(PAIRING_EXCHANGE_API.deny(id), {})).status).toBe(404);
    expect((await rowOf(id)).status).toBe("pending");
    expect(await laptop.answer()).toEqual({ step: "waiting" });
  });
});

describe("a hostile server against Add a device's typed code", () => {
  it("swaps the phone's key and share after the laptop's first look: the laptop refuses and wraps nothing", async () => {
    const serverPair = await generateDeviceKeyPair();
    const serverKey = await exportPublicKey(serverPair.publicKey);
    const serverKeyId = await keyId(serverPair.publicKey);
    // Every copy the laptop reads after the claim carries the server's key and a share of its own.
    const swap = (exchange: TypedPairingExchange): TypedPairingExchange => ({
      ...exchange,
      requester_public_key: serverKey,
      requester_key_id: serverKeyId,
      requester_share: makeApprovalSecret("0000", serverKey).share,
    });
    const { user, laptop, phone } = await laptopAndPhone("OfferSwap", { forge: swap });
    expect(await laptop.answer()).toEqual({ step: "refused" });
    await expect(laptop.approver.approve()).rejects.toThrow();
    expect((await rowOf(laptop.offer.offer_id)).status).toBe("denied");
    const rows = await keyRowsOf(server, user.id);
    expect(rows.wraps.map((w) => w.recipient_key_id)).not.toContain(serverKeyId);
    expect(rows.wraps.map((w) => w.recipient_key_id)).not.toContain(phone.held.keyId);
    expect(await phone.waiter.next("denied")).toEqual({ type: "denied" });
  });
});

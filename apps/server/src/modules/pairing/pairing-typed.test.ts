/**
 * A QR pairing's typed code, one code and one round (issue 41): the code typed on the signed-in device signs the new
 * device in and hands it the key at once, through the real server with the real key code. A malicious server (`forge`)
 * that swaps the new device's key or share after the approver saw it, or the handover, gets nothing.
 */
import { KEY_REQUEST_MAX_FAILURES, type TypedPairingExchange } from "@daysync/shared";
import {
  ApprovalRefusedError,
  exchangeAsKeyRequest,
  exportPublicKey,
  generateDeviceKeyPair,
  keyId,
  makeApprovalSecret,
} from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedAccount } from "../../testing/key-devices.ts";
import { keyRowsOf } from "../../testing/key-state.ts";
import { startTestServer, type TestServer } from "../../testing/test-server.ts";
import { newDeviceAsking, typingDevice } from "../../testing/typed-pairing.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/** An account's keyed phone, and a new laptop asking on its login panel with a typed-code exchange. */
async function phoneAndLaptop(name: string, options: Parameters<typeof newDeviceAsking>[1] = {}) {
  const { keyed, user } = await keyedAccount(server, name);
  const laptop = await newDeviceAsking(server, options);
  return { keyed, user, laptop };
}

const rowOf = (id: string) => server.db.selectFrom("pairing_requests").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("a QR pairing's typed code: one code, one round", () => {
  it("the code typed on the phone signs the laptop in holding the key, with no second approval", async () => {
    const { keyed, user, laptop } = await phoneAndLaptop("Typed");
    expect(laptop.shown.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // The server knows only the lookup half: the password half never left the laptop.
    const row = await rowOf(laptop.shown.request_id);
    expect(row.short_code).toBe(laptop.shown.code.slice(0, 4));
    expect(JSON.stringify(row)).not.toContain(laptop.requester.password);

    const phone = typingDevice(keyed.device, user.id, keyed.held());
    expect(await phone.type(laptop.shown.code.toLowerCase())).toEqual({ step: "waiting" });
    expect(await laptop.follow()).toEqual({ step: "confirmed" });
    expect(await phone.look()).toEqual({ step: "confirmed" });
    expect((await phone.approver.approve()).status).toBe("approved");

    const { accept, storage } = await laptop.signIn(user.id);
    expect(await accept()).toBe(true);
    expect([...(storage.held?.epochs.keys() ?? [])]).toEqual([1]);
    const rows = await keyRowsOf(server, user.id);
    expect(rows.wraps.filter((w) => w.recipient_key_id === laptop.held.keyId)).toEqual([
      expect.objectContaining({ epoch: 1, mode: "auth", sender_key_id: keyed.held().keyId }),
    ]);
  });

  it(`a wrong code ${KEY_REQUEST_MAX_FAILURES} times ends the request on both sides, and nobody is signed in`, async () => {
    const { keyed, user, laptop } = await phoneAndLaptop("Wrong");
    const phone = typingDevice(keyed.device, user.id, keyed.held());
    const wrong = `${laptop.shown.code.slice(0, 5)}${laptop.shown.code.endsWith("0000") ? "1111" : "0000"}`;
    expect(await phone.type(wrong)).toEqual({ step: "waiting" });
    expect(await laptop.follow()).toEqual({ step: "show", code: laptop.requester.password, wrongCodes: 1 });
    expect(await phone.look()).toEqual({ step: "wrong_code", wrongCodes: 1, left: 2 });
    for (const wrongCodes of [2, 3]) {
      const again = typingDevice(keyed.device, user.id, keyed.held());
      await again.type(wrong);
      const step = await laptop.follow();
      if (wrongCodes < 3) {
        expect(step).toEqual({ step: "show", code: laptop.requester.password, wrongCodes });
        expect(await again.look()).toEqual({ step: "wrong_code", wrongCodes, left: 3 - wrongCodes });
      } else {
        expect(step).toEqual({ step: "ended", status: "failed" });
        expect(await again.look()).toEqual({ step: "ended", status: "failed" });
      }
    }
    expect((await rowOf(laptop.shown.request_id)).status).toBe("failed");
    expect(await laptop.waiter.next("failed")).toEqual({ type: "failed" });
  });
});

describe("a hostile server against a QR pairing's typed code", () => {
  it("swaps the new device's key and share after the phone saw them: the phone refuses and wraps nothing", async () => {
    const { keyed, user, laptop } = await phoneAndLaptop("SwapKey");
    const server_ = await generateDeviceKeyPair();
    const serverKey = await exportPublicKey(server_.publicKey);
    const serverKeyId = await keyId(server_.publicKey);
    let copies = 0;
    // The first copy (the details) is genuine; every later one carries the server's key and a share of its own.
    const swap = (exchange: TypedPairingExchange): TypedPairingExchange =>
      copies++ === 0
        ? exchange
        : {
            ...exchange,
            requester_public_key: serverKey,
            requester_key_id: serverKeyId,
            requester_share: makeApprovalSecret("0000", serverKey).share,
          };
    const phone = typingDevice(keyed.device, user.id, keyed.held(), swap);
    await phone.type(laptop.shown.code);
    expect(await phone.look()).toEqual({ step: "refused" });
    await expect(phone.approver.approve()).rejects.toThrow();
    expect((await rowOf(laptop.shown.request_id)).status).toBe("denied");
    const rows = await keyRowsOf(server, user.id);
    expect(rows.wraps.map((w) => w.recipient_key_id)).not.toContain(serverKeyId);
    expect(rows.wraps.map((w) => w.recipient_key_id)).not.toContain(laptop.held.keyId);
  });

  it("poses as the new device with its own key from the start: one guess at the code, and the phone hands over nothing", async () => {
    const { keyed, user, laptop } = await phoneAndLaptop("PoseAs");
    const server_ = await generateDeviceKeyPair();
    const serverKey = await exportPublicKey(server_.publicKey);
    const serverKeyId = await keyId(server_.publicKey);
    const guess = makeApprovalSecret("0000", serverKey);
    const pose = (exchange: TypedPairingExchange): TypedPairingExchange => ({
      ...exchange,
      requester_public_key: serverKey,
      requester_key_id: serverKeyId,
      requester_share: guess.share,
    });
    const phone = typingDevice(keyed.device, user.id, keyed.held(), pose);
    await phone.type(laptop.shown.code);
    // The server, holding its guess's scalar but not the code, confirms with what it can compute: a made-up tag.
    const forged = pose({ ...(await phone.read()), status: "confirmed", requester_confirmation: "A".repeat(43) });
    const step = await phone.approver.update(exchangeAsKeyRequest(forged));
    expect(step).toEqual({ step: "refused" });
    await expect(phone.approver.approve()).rejects.toThrow();
    expect((await keyRowsOf(server, user.id)).wraps.map((w) => w.recipient_key_id)).not.toContain(serverKeyId);
  });

  it("swaps the handover: the new device keeps nothing", async () => {
    let swapHandover = false;
    const { keyed, user, laptop } = await phoneAndLaptop("SwapHandover", {
      forgeState: (state) =>
        swapHandover
          ? {
              ...state,
              wraps: state.wraps.map((w) => ({
                ...w,
                ciphertext: `${w.ciphertext.slice(0, -2)}${w.ciphertext.endsWith("AA") ? "BB" : "AA"}`,
              })),
            }
          : state,
    });
    const phone = typingDevice(keyed.device, user.id, keyed.held());
    await phone.type(laptop.shown.code);
    expect(await laptop.follow()).toEqual({ step: "confirmed" });
    expect(await phone.look()).toEqual({ step: "confirmed" });
    await phone.approver.approve();
    swapHandover = true;
    const { accept, storage } = await laptop.signIn(user.id);
    await expect(accept()).rejects.toBeInstanceOf(ApprovalRefusedError);
    expect(storage.held?.epochs.size).toBe(0);
  });
});

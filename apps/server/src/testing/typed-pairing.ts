/**
 * A QR pairing's typed code (docs/protocol/encryption.md, "QR pairing handover", typed code) as the apps run it: the
 * new device's real PairingRequester over the anonymous pairing routes and channel, and the signed-in device's real
 * approver over its session. `forge` on either side plays a malicious server: every copy of the exchange that side
 * reads passes through it first (the approver's details and GETs; the new device's channel messages and key state).
 */
import { randomBytes } from "node:crypto";
import {
  formatShortCode,
  type KeysState,
  keysStateSchema,
  makePairingPassword,
  PAIRING_API,
  PAIRING_EXCHANGE_API,
  type PairingRequestDetails,
  pairingJoinedSchema,
  pairingOfferCreatedSchema,
  pairingRequestCreatedSchema,
  responseSchemas,
  type TypedPairingExchange,
} from "@daysync/shared";
import {
  askingKey,
  exchangeAsKeyRequest,
  generateDeviceKeyPair,
  type HeldKeys,
  keyId,
  makePairingSecret,
  memoryKeyStorage,
  PairingRequester,
  type PairingRequesterRoutes,
  pairingApprover,
  typedPairingCode,
} from "@daysync/shared/crypto";
import { PairWaiter } from "./pair-waiter.ts";
import type { ApiResponse } from "./test-server.ts";
import { Device, type TestServer } from "./test-server.ts";

type ForgeExchange = (exchange: TypedPairingExchange) => TypedPairingExchange;

function ok(answer: ApiResponse, status = 200): unknown {
  if (answer.status !== status) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}
const exchangeOf = (answer: ApiResponse) => responseSchemas.pairingTyped.parse(ok(answer)).exchange;

/** The new device's steps of the exchange, by its request's secret: the same whether it asked or joined an offer. */
const exchangeSteps = (device: Device): Omit<PairingRequesterRoutes, "create"> => ({
  confirm: async (id, body) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.confirm(id), body)),
  reject: async (id, body) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.reject(id), body)),
  deny: async (id, body) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.deny(id), body)),
});

/** The new device (login panel, `daysync login`): asks with its key and share, shows the code, waits on the channel. */
export async function newDeviceAsking(server: Pick<TestServer, "url">, options: { forgeState?: (state: KeysState) => KeysState } = {}) {
  const device = new Device(server.url);
  const asking = await askingKey(generateDeviceKeyPair, makePairingSecret());
  const held: HeldKeys = { keyId: await keyId(asking.pair.publicKey), pair: asking.pair, epochs: new Map() };
  const forgeState = options.forgeState ?? ((state: KeysState) => state);
  const requester = new PairingRequester(
    held,
    asking.body.key_proof,
    asking.body.public_key,
    {
      create: async (body) => pairingRequestCreatedSchema.parse(ok(await device.post(PAIRING_API.requests, body), 201)),
      ...exchangeSteps(device),
    },
    async () => forgeState(keysStateSchema.parse(ok(await device.get("/api/keys")))),
  );
  const created = await requester.ask();
  const shown = { ...created, code: formatShortCode(created.short_code) };
  const waiter = await PairWaiter.open(server.url, shown.request_id, shown.secret);
  await waiter.next("waiting");
  let seen = 0;
  return {
    device,
    held,
    requester,
    shown,
    waiter,
    /** The next exchange step the channel sent, judged by the new device (it confirms or rejects). */
    async follow(forge: ForgeExchange = (e) => e) {
      const message = await waiter.nextAfter("exchange", seen);
      seen = waiter.received.indexOf(message) + 1;
      return requester.update(forge(message.exchange));
    },
    /** Approved: exchanges the token for its session; `accept` then takes the handover into `storage`. */
    async signIn(userId: string, forge: ForgeExchange = (e) => e) {
      const approved = await waiter.next("approved");
      ok(await device.post(PAIRING_API.exchange, { request_id: shown.request_id, secret: shown.secret, token: approved.token }));
      const storage = memoryKeyStorage(userId);
      await storage.saveDevice(held.keyId, held.pair);
      const { exchange } = approved;
      if (!exchange) throw new Error("approved without the exchange");
      return { storage, accept: () => requester.accept(userId, storage, forge(exchange)) };
    },
  };
}

/** The signed-in device where the code is typed: finds the request by the lookup half, answers, approves. */
export function typingDevice(device: Device, userId: string, held: HeldKeys, forge: ForgeExchange = (e) => e) {
  const approver = pairingApprover(userId, held, {
    state: async () => keysStateSchema.parse(ok(await device.get("/api/keys"))),
    exchange: async (id) => exchangeOf(await device.get(PAIRING_EXCHANGE_API.exchange(id))),
    answer: async (id, body) => forge(exchangeOf(await device.post(PAIRING_EXCHANGE_API.answer(id), body))),
    approve: async (id, body) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.approve(id), body)),
    deny: async (id) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.deny(id), {})),
  });
  let requestId = "";
  return {
    approver,
    /** Types the code: looks the request up by its first half and answers with the second. */
    async type(code: string) {
      const parts = typedPairingCode(code);
      if (!parts) throw new Error(`not a code: ${code}`);
      const details = (ok(await device.get(PAIRING_API.request(parts.lookup))) as { request: PairingRequestDetails }).request;
      if (!details.exchange) throw new Error("no exchange");
      requestId = details.request_id;
      const first = exchangeAsKeyRequest(forge(details.exchange));
      approver.see(first);
      return approver.answer(first, parts.password);
    },
    /** Types the code, then reads the exchange again until the other side judged it (as the page polls). */
    async typeAndFollow(code: string) {
      let step = await this.type(code);
      for (let tries = 0; step.step === "waiting" && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        step = await this.look();
      }
      return step;
    },
    /** The exchange as the server holds it now (as the page polls it). */
    async read() {
      return exchangeOf(await device.get(PAIRING_EXCHANGE_API.exchange(requestId)));
    },
    /** Reads the exchange again and follows it (through `forge`). */
    async look() {
      return approver.update(exchangeAsKeyRequest(forge(await this.read())));
    },
  };
}

/**
 * Add a device with the code typed: the new device (signed out) types the offering device's `lookup-password` and
 * joins the offer with its key and its share for the password half, then waits on the channel as `newDeviceAsking`.
 */
export async function newDeviceJoining(server: Pick<TestServer, "url">, typed: string) {
  const parts = typedPairingCode(typed);
  if (!parts) throw new Error(`not a code: ${typed}`);
  const device = new Device(server.url);
  const asking = await askingKey(generateDeviceKeyPair, makePairingSecret());
  const held: HeldKeys = { keyId: await keyId(asking.pair.publicKey), pair: asking.pair, epochs: new Map() };
  const requester = new PairingRequester(
    held,
    asking.body.key_proof,
    asking.body.public_key,
    {
      create: async (body) => pairingJoinedSchema.parse(ok(await device.post(PAIRING_API.join(parts.lookup), body), 201)),
      ...exchangeSteps(device),
    },
    async () => keysStateSchema.parse(ok(await device.get("/api/keys"))),
    parts.password,
  );
  const joined = await requester.join();
  const waiter = await PairWaiter.open(server.url, joined.request_id, joined.secret);
  await waiter.next("waiting");
  let seen = 0;
  return {
    device,
    held,
    requester,
    joined,
    waiter,
    /** The next exchange step the channel sent, judged by the new device (it confirms or rejects). */
    async follow() {
      const message = await waiter.nextAfter("exchange", seen);
      seen = waiter.received.indexOf(message) + 1;
      return requester.update(message.exchange);
    },
    /** Approved: exchanges the token for its session; `accept` then takes the handover into `storage`. */
    async signIn(userId: string) {
      const approved = await waiter.next("approved");
      ok(await device.post(PAIRING_API.exchange, { request_id: joined.request_id, secret: joined.secret, token: approved.token }));
      const storage = memoryKeyStorage(userId);
      await storage.saveDevice(held.keyId, held.pair);
      const { exchange } = approved;
      if (!exchange) throw new Error("approved without the exchange");
      return { storage, accept: () => requester.accept(userId, storage, exchange) };
    },
  };
}

/**
 * The device that offers (Add a device): makes the offer and its password half, shows `lookup-password`, hears the
 * claim on its offer channel and runs the approver side with its own password (nothing typed). `forge` plays a
 * malicious server on every copy of the exchange it reads after the claim.
 */
export async function offeringDevice(
  server: Pick<TestServer, "url">,
  device: Device,
  userId: string,
  held: HeldKeys,
  forge: ForgeExchange = (e) => e,
) {
  const offer = pairingOfferCreatedSchema.parse(ok(await device.post(PAIRING_API.offers), 201));
  const password = makePairingPassword(randomBytes);
  const watcher = await PairWaiter.watch(server.url, offer.offer_id, device.cookie);
  const approver = pairingApprover(userId, held, {
    state: async () => keysStateSchema.parse(ok(await device.get("/api/keys"))),
    exchange: async (id) => exchangeOf(await device.get(PAIRING_EXCHANGE_API.exchange(id))),
    answer: async (id, body) => forge(exchangeOf(await device.post(PAIRING_EXCHANGE_API.answer(id), body))),
    approve: async (id, body) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.approve(id), body)),
    deny: async (id) => exchangeOf(await device.post(PAIRING_EXCHANGE_API.deny(id), {})),
  });
  const read = async () => exchangeOf(await device.get(PAIRING_EXCHANGE_API.exchange(offer.offer_id)));
  return {
    offer,
    password,
    approver,
    /** What the screen shows under the QR code. */
    code: formatShortCode(`${offer.short_code}${password}`),
    /** The claim on the offer channel: its exchange is the first copy the approver keeps. */
    async claimed() {
      const claim = await watcher.next("claimed");
      const exchange = claim.request.exchange;
      if (!exchange) throw new Error("claimed without an exchange");
      approver.see(exchangeAsKeyRequest(exchange));
      return claim.request;
    },
    /** Approve, first half: answers with its own password (nothing typed) on the exchange as it reads now. */
    async answer() {
      return approver.answer(exchangeAsKeyRequest(forge(await read())), password);
    },
    read,
    /** Reads the exchange again and follows it (through `forge`). */
    async look() {
      return approver.update(exchangeAsKeyRequest(forge(await read())));
    },
  };
}

/**
 * A QR pairing's typed code in the browser, one code and one round (docs/protocol/encryption.md, "QR pairing
 * handover", typed code): the login panel asks with a CPace share and shows `lookup-password`; the signed-in device
 * where it is typed answers, and its Approve signs the new device in holding the key. The protocol is
 * @daysync/shared/crypto's pairing-approval.ts, shared with the CLI.
 */
import {
  HANDOVER_TEXT,
  KEYS_API,
  keysStateSchema,
  PAIRING_API,
  PAIRING_EXCHANGE_API,
  type PairingJoined,
  responseSchemas,
  type TypedPairingExchange,
} from "@daysync/shared";
import {
  type ApprovalStep,
  type AskedPairing,
  type AskingKey,
  exchangeAsKeyRequest,
  type KeyApprover,
  keyId,
  PairingRequester,
  pairingApprover,
} from "@daysync/shared/crypto";
import { api } from "../api-client.ts";
import { DeviceKeys } from "./device-keys.ts";
import { browserKeyStorage } from "./key-store.ts";

export type { ApprovalStep, AskedPairing, PairingRequester } from "@daysync/shared/crypto";
export { typedPairingCode } from "@daysync/shared/crypto";

const typed = async (path: string, body?: unknown) => (await api.post(path, body, responseSchemas.pairingTyped)).exchange;
const POLL_MS = 700;

const requesterRoutes = {
  confirm: (id: string, body: { secret: string; requester_confirmation: string }) => typed(PAIRING_EXCHANGE_API.confirm(id), body),
  reject: (id: string, body: { secret: string }) => typed(PAIRING_EXCHANGE_API.reject(id), body),
  deny: (id: string, body: { secret: string }) => typed(PAIRING_EXCHANGE_API.deny(id), body),
};

/** The new device's side, over the anonymous pairing routes (its request's secret proves it). */
export async function typedRequester(asking: AskingKey): Promise<PairingRequester> {
  const held = { keyId: await keyId(asking.pair.publicKey), pair: asking.pair, epochs: new Map() };
  return new PairingRequester(
    held,
    asking.body.key_proof,
    asking.body.public_key,
    { create: (body) => api.post(PAIRING_API.requests, body, responseSchemas.pairingRequest), ...requesterRoutes },
    () => api.get(KEYS_API.keys, keysStateSchema),
  );
}

/**
 * Add a device, the code typed on the new device: it joins the offer by the lookup half with its share for the
 * password half (never sent), and follows the exchange as the login panel's side does.
 */
export async function joiningRequester(asking: AskingKey, lookup: string, password: string): Promise<PairingRequester<PairingJoined>> {
  const held = { keyId: await keyId(asking.pair.publicKey), pair: asking.pair, epochs: new Map() };
  return new PairingRequester<PairingJoined>(
    held,
    asking.body.key_proof,
    asking.body.public_key,
    { create: (body) => api.post(PAIRING_API.join(lookup), body, responseSchemas.pairingJoined), ...requesterRoutes },
    () => api.get(KEYS_API.keys, keysStateSchema),
    password,
  );
}

/**
 * Approve of a typed code's exchange: answers with `password` on the first copy seen, waits for the new device to
 * confirm (polling), then hands over. The step it ended on: approved, a wrong code, the end, or still waiting.
 */
export async function approveTyped(approver: KeyApprover, exchange: TypedPairingExchange, password: string): Promise<ApprovalStep> {
  let step = await approver.answer(exchangeAsKeyRequest(exchange), password);
  const deadline = exchange.expires_at + 5_000;
  while (step.step === "waiting" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = await api.get(PAIRING_EXCHANGE_API.exchange(exchange.request_id), responseSchemas.pairingTyped);
    step = await approver.update(exchangeAsKeyRequest(now.exchange));
  }
  if (step.step !== "confirmed") return step;
  await approver.approve();
  return { step: "approved" };
}

/**
 * The new device, just signed in by a typed code's exchange: keeps its pair and the epochs of the handover. False
 * (and says so until dismissed) when the handover does not check out: the device is then signed in but locked.
 */
export async function acceptTypedHandover(
  requester: PairingRequester<AskedPairing>,
  userId: string,
  exchange: TypedPairingExchange,
  warn: (text: string) => void,
): Promise<boolean> {
  const storage = browserKeyStorage(userId);
  await storage.saveDevice(requester.keys.keyId, requester.keys.pair);
  try {
    return await requester.accept(userId, storage, exchange);
  } catch {
    warn(HANDOVER_TEXT.handoverNotVerified);
    return false;
  }
}

/** The signed-in device's side for one typed code; undefined when this device does not hold the account's key. */
export async function typedApprover(userId: string) {
  // The pairing pages stand outside the dashboard's session services: this device's keys are read here.
  const deviceKeys = new DeviceKeys(userId);
  await deviceKeys.refresh();
  deviceKeys.stop();
  const status = deviceKeys.getStatus();
  if (status.state !== "ready") return undefined;
  return pairingApprover(userId, status.keys, {
    state: () => api.get(KEYS_API.keys, keysStateSchema),
    exchange: async (id) => (await api.get(PAIRING_EXCHANGE_API.exchange(id), responseSchemas.pairingTyped)).exchange,
    answer: (id, body) => typed(PAIRING_EXCHANGE_API.answer(id), body),
    approve: (id, body) => typed(PAIRING_EXCHANGE_API.approve(id), body),
    deny: (id) => typed(PAIRING_EXCHANGE_API.deny(id), {}),
  });
}

/**
 * `daysync login`'s typed code, one code and one round (docs/protocol/encryption.md, "QR pairing handover", typed
 * code): the terminal asks with a CPace share and prints `lookup-password`; typed on a signed-in device, the code
 * signs the terminal in holding the key. The protocol is @daysync/shared/crypto's pairing-approval.ts.
 */
import {
  APPROVAL_TEXT,
  HANDOVER_TEXT,
  KEY_REQUEST_MAX_FAILURES,
  KEYS_API,
  keysStateSchema,
  PAIRING_API,
  PAIRING_EXCHANGE_API,
  responseSchemas,
  type TypedPairingExchange,
} from "@daysync/shared";
import { type AskingKey, keyId, PairingRequester } from "@daysync/shared/crypto";
import type { ApiClient } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";
import { say, warn } from "../terminal-text.ts";
import { fileKeys } from "./account-keys.ts";

/** The terminal's side: anonymous until signed in (`signedIn` then gives the session's client for the key state). */
export async function terminalRequester(api: ApiClient, asking: AskingKey, signedIn: () => ApiClient): Promise<PairingRequester> {
  const held = { keyId: await keyId(asking.pair.publicKey), pair: asking.pair, epochs: new Map() };
  const step = async (path: string, body: unknown) => (await api.json("POST", path, responseSchemas.pairingTyped, body)).body.exchange;
  return new PairingRequester(
    held,
    asking.body.key_proof,
    asking.body.public_key,
    {
      create: async (body) => (await api.json("POST", PAIRING_API.requests, responseSchemas.pairingRequest, body)).body,
      confirm: (id, body) => step(PAIRING_EXCHANGE_API.confirm(id), body),
      reject: (id, body) => step(PAIRING_EXCHANGE_API.reject(id), body),
      deny: (id, body) => step(PAIRING_EXCHANGE_API.deny(id), body),
    },
    async () => (await signedIn().json("GET", KEYS_API.keys, keysStateSchema)).body,
  );
}

/**
 * Judges one step of the exchange the pairing channel sent and says what it means here; the sentence that ends the
 * sign-in when the step ended the request (three wrong codes, or a copy that changed on the way).
 */
export async function followTypedStep(requester: PairingRequester, exchange: TypedPairingExchange): Promise<string | undefined> {
  const step = await requester.update(exchange);
  if (step.step === "show" && step.wrongCodes > 0) say(APPROVAL_TEXT.wrongCodeTyped(KEY_REQUEST_MAX_FAILURES - step.wrongCodes));
  if (step.step === "confirmed") say(APPROVAL_TEXT.waitingForHandover);
  if (step.step === "refused") return APPROVAL_TEXT.refused;
  if (step.step === "ended") return step.status === "failed" ? APPROVAL_TEXT.endedWrongCodes : APPROVAL_TEXT.denied;
  return undefined;
}

/** Signed in by the typed code's exchange: keeps the terminal's pair in keys.json and the epochs handed over. */
export async function acceptTerminalHandover(
  requester: PairingRequester,
  signedIn: ApiClient,
  store: ConfigStore,
  server: string,
  userId: string,
  exchange: TypedPairingExchange,
): Promise<void> {
  const { storage } = fileKeys(signedIn, store, server, userId);
  await storage.saveDevice(requester.keys.keyId, requester.keys.pair);
  try {
    await requester.accept(userId, storage, exchange);
  } catch {
    warn(HANDOVER_TEXT.handoverNotVerified);
  }
}

/**
 * The browser's part of the QR key handover (docs/protocol/encryption.md, "QR pairing handover"); the protocol itself is in
 * @daysync/shared/crypto's key-handover.ts, shared with the CLI. The link's secret lives in its fragment, which
 * never reaches the server: the page that opens the link takes it out of the address bar at once.
 */
import { KEYS_API, keysStateSchema, type PairingHandover, type PairingRequestDetails } from "@daysync/shared";
import {
  type AskingKey,
  askingKey,
  generateDeviceKeyPair,
  type HandoverOutcome,
  makeHandover,
  receiveHandover,
  secretOfFragment,
  verifyAskingKey,
} from "@daysync/shared/crypto";
import { api } from "../api-client.ts";
import { hasWebCrypto, InsecureAddressError } from "../web-crypto.ts";
import { DeviceKeys } from "./device-keys.ts";
import { browserKeyStorage } from "./key-store.ts";

/** Pairing's secrets and links, as the pairing pages make and read them. */
export { makePairingSecret, pairingFragment, secretOfFragment } from "@daysync/shared/crypto";

let taken: { path: string; secret: string | null } | undefined;

/**
 * The secret in this page's fragment, removed from the address bar (and so from history) as it is read; asked again
 * on the same page (a second render), the same answer.
 */
export function takeFragmentSecret(): string | null {
  const { hash, pathname, search } = window.location;
  if (hash || taken?.path !== pathname) taken = { path: pathname, secret: secretOfFragment(hash) };
  if (hash) window.history.replaceState(window.history.state, "", pathname + search);
  return taken.secret;
}

/** The new device, before it asks: its pair, kept in memory until it is signed in. */
export const newAskingKey = async (secret: string) => {
  if (!hasWebCrypto()) throw new InsecureAddressError();
  return askingKey(() => generateDeviceKeyPair(), secret);
};

/** What the new device needs after the exchange to take the handover. */
export interface PairingKeys {
  asking: AskingKey;
  secret: string;
}

/** The new device, just signed in: keeps its pair and opens what the approving device handed over. */
export function takeHandover(userId: string, keys: PairingKeys, requestId: string): Promise<HandoverOutcome> {
  return receiveHandover({
    userId,
    storage: browserKeyStorage(userId),
    server: {
      state: () => api.get(KEYS_API.keys, keysStateSchema),
      replaceOwnWraps: (body) => api.put(KEYS_API.ownWraps, body, keysStateSchema),
    },
    asking: keys.asking,
    secret: keys.secret,
    requestId,
  });
}

/**
 * The approving device: what goes with Approve. "not_verified" when the asking device's proof fails (the page then
 * denies); no handover without a secret (a typed code) or without the current key on this device.
 */
export async function approvalFor(
  secret: string | null,
  request: PairingRequestDetails,
  userId: string,
): Promise<{ handover?: PairingHandover } | "not_verified"> {
  if (!secret) return {};
  if (!(await verifyAskingKey(secret, request)) || !request.public_key) return "not_verified";
  // The pairing pages stand outside the dashboard's session services: this device's keys are read here.
  const deviceKeys = new DeviceKeys(userId);
  await deviceKeys.refresh();
  deviceKeys.stop();
  const status = deviceKeys.getStatus();
  if (status.state !== "ready") return {};
  const state = await api.get(KEYS_API.keys, keysStateSchema);
  const handover = await makeHandover({
    userId,
    held: status.keys,
    state,
    secret,
    requestId: request.request_id,
    publicKey: request.public_key,
  });
  return handover ? { handover } : {};
}

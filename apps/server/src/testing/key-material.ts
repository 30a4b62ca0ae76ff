/**
 * Key material for server tests of decision 020: the server keeps keys and wraps as opaque text, so random bytes of
 * the right sizes stand in for what the devices' crypto library makes; only key ids are computed, as the server does.
 * Epoch bodies, their wraps and roster rows, are made of such stand-ins.
 */
import { createHash, randomBytes } from "node:crypto";
import { type CreateEpochInput, KEYS_API } from "@daysync/shared";
import { expect } from "vitest";
import type { Device } from "./test-server.ts";

/** `bytes` random bytes, base64url. */
export const b64 = (bytes: number) => randomBytes(bytes).toString("base64url");

/** A device's key: a raw X25519 public key and its id, computed here on its own. */
export function newKey() {
  const raw = randomBytes(32);
  return { publicKey: raw.toString("base64url"), keyId: createHash("sha256").update(raw).digest().subarray(0, 16).toString("base64url") };
}
export type Key = ReturnType<typeof newKey>;

/** Gives the device a new key through PUT /api/keys/device. */
export async function keyed(device: Device): Promise<Key> {
  const key = newKey();
  const res = await device.request("PUT", KEYS_API.device, { public_key: key.publicKey });
  expect(res).toMatchObject({ status: 200, body: { key_id: key.keyId, public_key: key.publicKey } });
  return key;
}

/** A wrap of `epoch` for `key`: sealed by `sender` (auth mode) when given, else base mode. */
export const wrapFor = (epoch: number, key: Key, sender?: Key) => ({
  epoch,
  recipient_key_id: key.keyId,
  ...(sender ? { sender_key_id: sender.keyId, mode: "auth" as const } : { mode: "base" as const }),
  enc: b64(32),
  ciphertext: b64(48),
});

/** `key`'s roster row in `epoch`, added by `addedBy` when given. */
export const rosterRow = (epoch: number, key: Key, addedBy?: Key) => ({
  epoch,
  key_id: key.keyId,
  public_key: key.publicKey,
  kind: "device" as const,
  ...(addedBy ? { added_by_key_id: addedBy.keyId } : {}),
  tag: b64(32),
});

/** An epoch posted by the device of `own`, wrapped for it and for `others` (sealed by `own`). */
export function epochBody(
  own: Key,
  options: { epoch?: number; reason?: CreateEpochInput["reason"]; others?: Key[] } = {},
): CreateEpochInput {
  const epoch = options.epoch ?? 1;
  const others = options.others ?? [];
  return {
    epoch,
    expected: epoch === 1 ? null : epoch - 1,
    reason: options.reason ?? (epoch === 1 ? "first" : "rotation"),
    wraps: [wrapFor(epoch, own), ...others.map((k) => wrapFor(epoch, k, own))],
    roster: [rosterRow(epoch, own), ...others.map((k) => rosterRow(epoch, k, own))],
  };
}

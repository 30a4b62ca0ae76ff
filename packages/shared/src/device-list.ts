/**
 * The signed device list (docs/protocol/encryption.md, "Signed device list"): every addition and removal of a device
 * is an entry signed (Ed25519) by a device already in the list, chained by hash from the first. The server stores and
 * serves the entries, append-only, and checks only that an append extends the head; the devices check the rest.
 */
import { z } from "zod";
import { base64url, keyIdSchema, publicKeySchema } from "./keys.ts";

export const DEVICE_LIST_API = {
  /** GET: the account's list and the signing keys its signed-in devices published (`deviceListSchema`). */
  list: "/api/keys/list",
  /** POST `{ entry }`: appends one entry that extends the head (201 with the list); 409 `device_list_moved` otherwise. */
  append: "/api/keys/list",
  /** PUT `{ signing_key }`: this device's Ed25519 public key, set once, for the device that adds it to the list. */
  signingKey: "/api/keys/signing",
} as const;

/** An Ed25519 public key: 32 bytes, 43 base64url characters. */
export const signingKeySchema = base64url("signing_key", 43, 43);

export const deviceListKindSchema = z.enum(["add", "remove"], { error: "kind must be add or remove." });

/** Most entries a list holds: additions and removals over an account's life. */
export const DEVICE_LIST_MAX_ENTRIES = 10_000;

export const deviceListEntrySchema = z.object({
  seq: z.number().int("seq must be a whole number.").nonnegative("seq starts at 0.").max(DEVICE_LIST_MAX_ENTRIES, "The list is full."),
  /** base64url SHA-256 of the previous entry (`deviceListEntryEncoding` and its signature); null for the first. */
  prev: base64url("prev", 43, 43).nullable(),
  kind: deviceListKindSchema,
  key_id: keyIdSchema,
  public_key: publicKeySchema,
  signing_key: signingKeySchema,
  signer_key_id: keyIdSchema,
  /** Ed25519 over `deviceListEntryEncoding`: 64 bytes. */
  signature: base64url("signature", 86, 86),
});
export type DeviceListEntry = z.infer<typeof deviceListEntrySchema>;

export const appendDeviceListSchema = z.object({ entry: deviceListEntrySchema });
export const setSigningKeySchema = z.object({ signing_key: signingKeySchema });

export const deviceListSchema = z.object({
  entries: z.array(deviceListEntrySchema),
  /** The signing keys the account's signed-in devices published, by key id: what an adding device lists. */
  signing_keys: z.array(z.object({ key_id: z.string(), signing_key: z.string() })),
});
export type DeviceList = z.infer<typeof deviceListSchema>;

/**
 * What an entry's signature covers, as UTF-8: "daysync/v1/device-list|" + [user id, seq, prev ("" for the first),
 * kind, key id, public key, signing key, signer key id] joined with "|" (no field holds "|").
 */
export function deviceListEntryEncoding(userId: string, entry: Omit<DeviceListEntry, "signature">): string {
  const fields = [
    userId,
    String(entry.seq),
    entry.prev ?? "",
    entry.kind,
    entry.key_id,
    entry.public_key,
    entry.signing_key,
    entry.signer_key_id,
  ];
  if (fields.some((field) => field.includes("|"))) throw new TypeError("A device list field holds a |");
  return `daysync/v1/device-list|${fields.join("|")}`;
}

/** What an entry's hash covers: its encoding, "|", and its signature. */
export const deviceListHashInput = (userId: string, entry: DeviceListEntry) =>
  `${deviceListEntryEncoding(userId, entry)}|${entry.signature}`;

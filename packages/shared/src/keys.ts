/**
 * End-to-end encryption's key state (docs/protocol/encryption.md, "Keys"): each device's public key, the account's numbered epochs,
 * the wraps of each epoch key for its recipients and the roster of keys trusted in an epoch. The server stores and
 * relays these as base64url text; only devices open or check them.
 */
import { z } from "zod";

export const KEYS_API = {
  /** GET: this device's key state (`keysStateSchema`). */
  keys: "/api/keys",
  /** PUT `{ public_key }`: this device's public key, set once. */
  device: "/api/keys/device",
  /** POST: makes the account's next epoch (`createEpochSchema`); 201 with the key state. */
  epochs: "/api/keys/epochs",
  /** PUT: this device's own wraps, sealed by it for itself in place of those a pairing gave it (`ownWrapsSchema`). */
  ownWraps: "/api/keys/wraps/own",
  /** POST `{ requester_share }`: a locked device asks to be approved (201); GET: the account's open requests. */
  requests: "/api/keys/requests",
  /** POST `{ approver_share, approver_confirmation }`: a device holding the current key answers with the typed code. */
  answer: (id: string) => `/api/keys/requests/${encodeURIComponent(id)}/answer`,
  /** POST `{ requester_confirmation }`: the asking device found the answer's confirmation good (the codes match). */
  confirm: (id: string) => `/api/keys/requests/${encodeURIComponent(id)}/confirm`,
  /** POST: the asking device found the answer's confirmation wrong (a wrong code); the third ends the request. */
  reject: (id: string) => `/api/keys/requests/${encodeURIComponent(id)}/reject`,
  /** POST `{ wraps, roster, handover_confirmation }`: the answering device hands over the epoch keys. */
  approve: (id: string) => `/api/keys/requests/${encodeURIComponent(id)}/approve`,
  /** POST: either side ends the request (Deny, No). */
  deny: (id: string) => `/api/keys/requests/${encodeURIComponent(id)}/deny`,
  /** PUT (`setRecoverySchema`): the account's recovery key, replacing an older one; GET: it, for a locked device; DELETE. */
  recovery: "/api/keys/recovery",
  /** POST (`recoveryUnlockSchema`): a locked device that opened the recovery key's epochs adds itself to them. */
  recoveryUnlock: "/api/keys/recovery/unlock",
  /** POST: a locked device asks to start over in 24 hours (decision 021); DELETE: a device holding the key cancels it. */
  startOver: "/api/keys/start-over",
} as const;

/** base64url without padding, `min` to `max` characters. */
export const base64url = (name: string, min: number, max: number) =>
  z
    .string({ error: `${name} must be base64url text.` })
    .regex(/^[A-Za-z0-9_-]*$/, `${name} must be base64url without padding.`)
    .min(min, `${name} is too short.`)
    .max(max, `${name} is too long.`);

/** A raw public key: X25519 is 32 bytes (43 characters); the P-256 fallback's is 65 (87). */
export const publicKeySchema = base64url("public_key", 43, 100);

/** The first 16 bytes of SHA-256 of a raw public key: 22 characters. */
export const KEY_ID_LENGTH = 22;
export const keyIdSchema = base64url("A key id", KEY_ID_LENGTH, KEY_ID_LENGTH);

/** An epoch number: 1, 2, … per account (an `integer` column on both engines). */
export const epochSchema = z
  .number({ error: "An epoch must be a number." })
  .int("An epoch must be a whole number.")
  .positive("An epoch starts at 1.")
  .max(2_147_483_647, "An epoch is too large.");

/** HPKE modes: `psk` for a QR pairing, `auth` from a device's own key, `base` for a device's wrap to itself. */
export const wrapModeSchema = z.enum(["psk", "auth", "base"], { error: "mode must be psk, auth or base." });
export const rosterKindSchema = z.enum(["device", "recovery"], { error: "kind must be device or recovery." });
export const epochReasonSchema = z.enum(["first", "rotation", "start_over"], { error: "reason must be first, rotation or start_over." });
export type EpochReason = z.infer<typeof epochReasonSchema>;

/** Most wraps and roster rows one epoch takes: every device of the account and the recovery key. */
export const EPOCH_MAX_KEYS = 64;

export const setDeviceKeySchema = z.object({ public_key: publicKeySchema });
export type SetDeviceKeyInput = z.infer<typeof setDeviceKeySchema>;

/** An epoch key sealed for one recipient key (HPKE: `enc` the encapsulated key, `ciphertext` the sealed 32 bytes). */
export const keyWrapSchema = z.object({
  epoch: epochSchema,
  recipient_key_id: keyIdSchema,
  sender_key_id: keyIdSchema.nullable().optional(),
  mode: wrapModeSchema,
  enc: base64url("enc", 43, 100),
  ciphertext: base64url("ciphertext", 22, 256),
});
export type KeyWrapInput = z.infer<typeof keyWrapSchema>;

/** A key trusted in an epoch; `tag` is the HMAC over the row under that epoch's roster key. */
export const rosterEntrySchema = z.object({
  epoch: epochSchema,
  key_id: keyIdSchema,
  public_key: publicKeySchema,
  kind: rosterKindSchema,
  added_by_key_id: keyIdSchema.nullable().optional(),
  tag: base64url("tag", 43, 100),
});
export type RosterEntryInput = z.infer<typeof rosterEntrySchema>;

/**
 * The account's next epoch: 1 with `expected: null` (reason `first`), or n+1 with `expected: n` (`rotation`, or
 * `start_over` when no other device holds epoch n). Every wrap and roster row is of the new epoch, one of each per key.
 */
export const createEpochSchema = z
  .object({
    epoch: epochSchema,
    /** The current epoch, or null for the first. */
    expected: epochSchema.nullable(),
    reason: epochReasonSchema,
    wraps: z
      .array(keyWrapSchema, { error: "wraps must be a list." })
      .min(1, "wraps must hold this device's wrap.")
      .max(EPOCH_MAX_KEYS, `At most ${EPOCH_MAX_KEYS} wraps.`),
    roster: z
      .array(rosterEntrySchema, { error: "roster must be a list." })
      .min(1, "roster must hold this device's key.")
      .max(EPOCH_MAX_KEYS, `At most ${EPOCH_MAX_KEYS} roster rows.`),
  })
  .superRefine((body, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: "custom", path, message });
    if (body.epoch !== (body.expected ?? 0) + 1) issue(["epoch"], "epoch must be the one after expected (1 when expected is null).");
    if ((body.reason === "first") !== (body.expected === null)) issue(["reason"], "reason is first exactly when expected is null.");
    const recipients = new Set<string>();
    body.wraps.forEach((wrap, i) => {
      if (wrap.epoch !== body.epoch) issue(["wraps", i, "epoch"], "Every wrap must be of the new epoch.");
      if (recipients.has(wrap.recipient_key_id)) issue(["wraps", i, "recipient_key_id"], "One wrap per recipient key.");
      recipients.add(wrap.recipient_key_id);
      if (wrap.mode === "auth" && !wrap.sender_key_id) issue(["wraps", i, "sender_key_id"], "An auth-mode wrap names its sender key.");
    });
    const listed = new Set<string>();
    body.roster.forEach((entry, i) => {
      if (entry.epoch !== body.epoch) issue(["roster", i, "epoch"], "Every roster row must be of the new epoch.");
      if (listed.has(entry.key_id)) issue(["roster", i, "key_id"], "One roster row per key.");
      listed.add(entry.key_id);
    });
    body.wraps.forEach((wrap, i) => {
      if (!listed.has(wrap.recipient_key_id)) issue(["wraps", i, "recipient_key_id"], "Every wrap's recipient must be in the roster.");
    });
  });
export type CreateEpochInput = z.infer<typeof createEpochSchema>;

/**
 * A device that got epochs by a QR pairing holds them in `psk` wraps whose secret is gone once the pairing ends; it
 * seals each for itself (auth mode, its own key as sender) so it can open it again, to hand it on or rotate.
 */
export const ownWrapsSchema = z.object({
  wraps: z
    .array(z.object({ epoch: epochSchema, enc: base64url("enc", 43, 100), ciphertext: base64url("ciphertext", 22, 256) }), {
      error: "wraps must be a list.",
    })
    .min(1, "wraps must hold at least one wrap.")
    .max(256, "At most 256 wraps."),
});
export type OwnWrapsInput = z.infer<typeof ownWrapsSchema>;

/** A stored wrap, as its recipient device reads it. */
export const storedKeyWrapSchema = z.object({
  epoch: z.number(),
  recipient_key_id: z.string(),
  sender_key_id: z.string().nullable(),
  mode: wrapModeSchema,
  enc: z.string(),
  ciphertext: z.string(),
  created_at: z.number(),
});
export type StoredKeyWrap = z.infer<typeof storedKeyWrapSchema>;

export const storedRosterEntrySchema = z.object({
  epoch: z.number(),
  key_id: z.string(),
  public_key: z.string(),
  kind: rosterKindSchema,
  added_by_key_id: z.string().nullable(),
  added_at: z.number(),
  tag: z.string(),
});
export type StoredRosterEntry = z.infer<typeof storedRosterEntrySchema>;

/** GET /api/keys, and POST /api/keys/epochs (201): what this device needs to hold the account's keys. */
export const keysStateSchema = z.object({
  /** This session's id, which sealed values name as their sender. */
  session_id: z.string(),
  /** This device's key id; null until it sent its public key. */
  key_id: z.string().nullable(),
  /** The account's current epoch; null while it has none (the first device makes epoch 1). */
  epoch: z.number().nullable(),
  /** A device holding the current key was removed: a keyed device should make the next epoch. */
  rotation_due: z.boolean(),
  /** This device's wraps (addressed to its key id), of every epoch it holds, oldest epoch first. */
  wraps: z.array(storedKeyWrapSchema),
  /** The roster of the current epoch and of every epoch this device holds a wrap of, by epoch. */
  roster: z.array(storedRosterEntrySchema),
  /** How many of the account's other signed-in devices hold the current epoch (0: Start over is possible). */
  other_devices_with_current_key: z.number().int().nonnegative(),
  /**
   * The key ids that hold a wrap of the current epoch, this device's too: the devices a rotation wraps the next
   * epoch for, once each is found, with a valid tag, in the current epoch's roster.
   */
  holders: z.array(z.string()),
  /**
   * Present only when the account has a recovery code (docs/protocol/encryption.md, "Recovery code"): when it was made, and its key id,
   * which is among `holders` once the code exists, so a rotation wraps the next epoch for it too.
   */
  recovery: z.object({ key_id: z.string(), created_at: z.number() }).optional(),
  /**
   * Present while a locked device's request to start over stands (decision 021): when it was made, from when that
   * device may start over unless a device holding the key cancels it, and whether this device is the one that asked.
   */
  start_over: z.object({ requested_at: z.number(), available_at: z.number(), by_this_device: z.boolean() }).optional(),
});
export type KeysState = z.infer<typeof keysStateSchema>;

/** How long the account's key holders have to cancel a locked device's request to start over (decision 021). */
export const START_OVER_WAIT_MS = 24 * 60 * 60_000;

/** PUT /api/keys/device: the key id the server computed from the public key. */
export const deviceKeySchema = z.object({ key_id: z.string(), public_key: z.string() });
export type DeviceKeyResponse = z.infer<typeof deviceKeySchema>;

/** How long a check-code request stays open. */
export const KEY_REQUEST_LIFETIME_MS = 10 * 60_000;

/**
 * pending → answered (a device sent its share for the typed code) → confirmed (the codes matched) → approved; a wrong
 * code takes an answered request back to pending, and the third ends it as failed; denied or expired end it too.
 */
export const keyRequestStatusSchema = z.enum(["pending", "answered", "confirmed", "approved", "denied", "expired", "failed"]);
export type KeyRequestStatus = z.infer<typeof keyRequestStatusSchema>;

/** How many wrong codes end a request: each is one guess at the code. */
export const KEY_REQUEST_MAX_FAILURES = 3;

/** A ristretto255 share or an HMAC-SHA-256 tag: 32 bytes, 43 base64url characters. */
const digest = (name: string) => base64url(name, 43, 43);

export const keyRequestIdParamsSchema = z.object({ id: z.uuid("A request id must be a UUID.") });
export const createKeyRequestSchema = z.object({ requester_share: digest("requester_share") });
export const answerKeyRequestSchema = z.object({
  approver_share: digest("approver_share"),
  approver_confirmation: digest("approver_confirmation"),
});
export const confirmKeyRequestSchema = z.object({ requester_confirmation: digest("requester_confirmation") });

/**
 * The handover of an approval: an `auth`-mode wrap from the approver's key for every epoch it holds (the current one
 * among them), and the new device's roster row for the current epoch, tagged by the approver.
 */
export const approveKeyRequestSchema = z
  .object({
    wraps: z
      .array(keyWrapSchema, { error: "wraps must be a list." })
      .min(1, "wraps must hold the current epoch's key.")
      .max(EPOCH_MAX_KEYS, `At most ${EPOCH_MAX_KEYS} wraps.`),
    roster: rosterEntrySchema,
    /** HMAC of the wraps and the row under the exchange's handover key: the asking device keeps nothing else. */
    handover_confirmation: digest("handover_confirmation"),
  })
  .superRefine((body, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: "custom", path, message });
    const epochs = new Set<number>();
    body.wraps.forEach((wrap, i) => {
      if (wrap.mode !== "auth") issue(["wraps", i, "mode"], "An approval's wraps are auth-mode wraps from the approving device's key.");
      else if (!wrap.sender_key_id) issue(["wraps", i, "sender_key_id"], "An auth-mode wrap names its sender key.");
      if (epochs.has(wrap.epoch)) issue(["wraps", i, "epoch"], "One wrap per epoch.");
      epochs.add(wrap.epoch);
    });
    if (body.roster.kind !== "device") issue(["roster", "kind"], "The new row is a device's.");
  });
export type ApproveKeyRequestInput = z.infer<typeof approveKeyRequestSchema>;

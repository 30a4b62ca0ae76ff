/**
 * The recovery code's contracts (docs/protocol/encryption.md, "Recovery code"). The server keeps, per account, the recovery public key (a
 * roster row of kind `recovery`), the anchor (the epoch key of the epoch the code was made in, sealed with a key only
 * the code gives) and an `auth`-mode wrap of every epoch for the recovery key; a locked device that typed the code
 * opens them and adds itself with its own wraps and roster row. The server also keeps a SHA-256 of a proof derived
 * from the code, so only a device that knows the code can add itself this way.
 */
import { z } from "zod";
import {
  base64url,
  epochSchema,
  keyWrapSchema,
  publicKeySchema,
  rosterEntrySchema,
  storedKeyWrapSchema,
  storedRosterEntrySchema,
} from "./keys.ts";

/** Most epochs a recovery key or an unlocking device is wrapped for at once, as PUT /api/keys/wraps/own takes. */
export const RECOVERY_MAX_EPOCHS = 256;

/** A SHA-256, or the 32-byte proof: 43 base64url characters. */
const digest = (name: string) => base64url(name, 43, 43);

/** nonce (12) ‖ sealed 32-byte epoch key ‖ tag (16): 60 bytes, 80 characters. */
export const recoveryAnchorSchema = base64url("anchor", 80, 80);

/**
 * PUT /api/keys/recovery, from a device holding the current epoch: the recovery public key, its roster row of the
 * current epoch (`anchor_epoch`), tagged by this device, the anchor of that epoch, the proof's SHA-256 and an
 * `auth`-mode wrap from this device's key for the recovery key of every epoch it holds, the current one among them.
 */
export const setRecoverySchema = z
  .object({
    public_key: publicKeySchema,
    anchor_epoch: epochSchema,
    anchor: recoveryAnchorSchema,
    proof_hash: digest("proof_hash"),
    roster: rosterEntrySchema,
    wraps: z
      .array(keyWrapSchema, { error: "wraps must be a list." })
      .min(1, "wraps must hold the current epoch's key.")
      .max(RECOVERY_MAX_EPOCHS, `At most ${RECOVERY_MAX_EPOCHS} wraps.`),
  })
  .superRefine((body, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: "custom", path, message });
    if (body.roster.kind !== "recovery") issue(["roster", "kind"], "The recovery key's row is of kind recovery.");
    if (body.roster.epoch !== body.anchor_epoch) issue(["roster", "epoch"], "The recovery key's row is of the anchor's epoch.");
    if (body.roster.public_key !== body.public_key) issue(["roster", "public_key"], "The row must name the recovery public key.");
    const epochs = new Set<number>();
    body.wraps.forEach((wrap, i) => {
      if (wrap.mode !== "auth") issue(["wraps", i, "mode"], "A recovery key's wraps are auth-mode wraps from this device's key.");
      else if (!wrap.sender_key_id) issue(["wraps", i, "sender_key_id"], "An auth-mode wrap names its sender key.");
      if (wrap.recipient_key_id !== body.roster.key_id) issue(["wraps", i, "recipient_key_id"], "Every wrap is for the recovery key.");
      if (wrap.epoch > body.anchor_epoch) issue(["wraps", i, "epoch"], "No wrap may be of an epoch after the anchor's.");
      if (epochs.has(wrap.epoch)) issue(["wraps", i, "epoch"], "One wrap per epoch.");
      epochs.add(wrap.epoch);
    });
    if (!epochs.has(body.anchor_epoch)) issue(["wraps"], "wraps must hold the anchor epoch's key.");
  });
export type SetRecoveryInput = z.infer<typeof setRecoverySchema>;

/**
 * POST /api/keys/recovery/unlock, from a locked device that opened the recovery key's epochs: the proof derived from
 * the code, its own wraps (sealed by itself, `auth` mode, its own key as sender) of those epochs, the current one
 * among them, and its roster row of the current epoch, tagged with that epoch's key and added by the recovery key.
 */
export const recoveryUnlockSchema = z
  .object({
    proof: digest("proof"),
    wraps: z
      .array(z.object({ epoch: epochSchema, enc: base64url("enc", 43, 100), ciphertext: base64url("ciphertext", 22, 256) }), {
        error: "wraps must be a list.",
      })
      .min(1, "wraps must hold the current epoch's key.")
      .max(RECOVERY_MAX_EPOCHS, `At most ${RECOVERY_MAX_EPOCHS} wraps.`),
    roster: rosterEntrySchema,
  })
  .superRefine((body, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: "custom", path, message });
    if (body.roster.kind !== "device") issue(["roster", "kind"], "The new row is a device's.");
    const epochs = new Set<number>();
    body.wraps.forEach((wrap, i) => {
      if (epochs.has(wrap.epoch)) issue(["wraps", i, "epoch"], "One wrap per epoch.");
      epochs.add(wrap.epoch);
    });
    if (!epochs.has(body.roster.epoch)) issue(["wraps"], "wraps must hold the roster row's epoch.");
  });
export type RecoveryUnlockInput = z.infer<typeof recoveryUnlockSchema>;

/**
 * GET and PUT /api/keys/recovery: null when the account has no recovery code; otherwise what a locked device needs to
 * use one: the recovery key, the anchor and its epoch, the recovery key's wraps (oldest first) and the roster of every
 * epoch from the anchor's on, whose rows vouch for the devices that sealed those wraps.
 */
export const recoveryStateSchema = z.object({
  recovery: z
    .object({
      key_id: z.string(),
      public_key: z.string(),
      created_at: z.number(),
      anchor_epoch: z.number(),
      anchor: z.string(),
      wraps: z.array(storedKeyWrapSchema),
      roster: z.array(storedRosterEntrySchema),
    })
    .nullable(),
});
export type RecoveryState = z.infer<typeof recoveryStateSchema>;
export type StoredRecovery = NonNullable<RecoveryState["recovery"]>;

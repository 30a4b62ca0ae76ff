/**
 * The key handover in a QR pairing (docs/protocol/encryption.md, "QR pairing handover"): what the new device sends with its request (its
 * public key and the proof that it holds the link's secret), and what the approving device sends with Approve (the
 * account's live epochs wrapped in HPKE `psk` mode for that key, and the key's roster row of the current epoch).
 */
import { z } from "zod";
import { base64url, keyWrapSchema, publicKeySchema, rosterEntrySchema } from "./keys.ts";

/** HMAC-SHA256: 32 bytes, 43 base64url characters. */
export const keyProofSchema = base64url("key_proof", 43, 43);

/** Body of POST /api/pair/requests and POST /api/pair/join/:code: both fields or neither (a device without WebCrypto keys). */
export const pairingKeySchema = z
  .object({ public_key: publicKeySchema.optional(), key_proof: keyProofSchema.optional() })
  .superRefine((body, ctx) => {
    if (body.public_key !== undefined && body.key_proof === undefined) {
      ctx.addIssue({ code: "custom", path: ["key_proof"], message: "key_proof must come with public_key." });
    }
    if (body.key_proof !== undefined && body.public_key === undefined) {
      ctx.addIssue({ code: "custom", path: ["public_key"], message: "public_key must come with key_proof." });
    }
  });
export type PairingKeyInput = z.infer<typeof pairingKeySchema>;

/** One wrap per live epoch; far more than an account keeps live (epochs go once no live message uses them). */
export const HANDOVER_MAX_WRAPS = 256;

export const pairingHandoverSchema = z
  .object({
    wraps: z
      .array(keyWrapSchema, { error: "handover.wraps must be a list." })
      .min(1, "handover.wraps must hold the current epoch's wrap.")
      .max(HANDOVER_MAX_WRAPS, `At most ${HANDOVER_MAX_WRAPS} wraps.`),
    roster: rosterEntrySchema,
  })
  .superRefine((handover, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: "custom", path, message });
    const epochs = new Set<number>();
    handover.wraps.forEach((wrap, i) => {
      if (wrap.mode !== "psk") issue(["wraps", i, "mode"], "A pairing's wraps are psk-mode wraps.");
      if (epochs.has(wrap.epoch)) issue(["wraps", i, "epoch"], "One wrap per epoch.");
      epochs.add(wrap.epoch);
      if (wrap.recipient_key_id !== handover.roster.key_id)
        issue(["wraps", i, "recipient_key_id"], "Every wrap is for the new device's key.");
    });
    if (handover.roster.kind !== "device") issue(["roster", "kind"], "The new key's roster row is of kind device.");
    if (!epochs.has(handover.roster.epoch)) issue(["roster", "epoch"], "The roster row's epoch must be one of the wraps'.");
  });
export type PairingHandover = z.infer<typeof pairingHandoverSchema>;

/** Body of approve (both directions): optional, since a typed short code has no secret and hands over no key. */
export const pairingApproveSchema = z.object({ handover: pairingHandoverSchema.optional() });
export type PairingApproveInput = z.infer<typeof pairingApproveSchema>;

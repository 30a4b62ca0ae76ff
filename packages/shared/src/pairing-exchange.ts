/**
 * The typed code of a QR pairing (docs/protocol/encryption.md, "QR pairing handover", typed code): the new device shows
 * `ABCD-WXYZ`, where `ABCD` is the server's lookup code and `WXYZ` the password the new device made and never sends.
 * The password runs the approval's CPace exchange (`approval-exchange.ts`) inside the pairing request, so the code
 * typed on the signed-in device both signs the new device in and hands it the account's key, in one round.
 */
import { z } from "zod";
import { answerKeyRequestSchema, approveKeyRequestSchema, confirmKeyRequestSchema, keyRequestStatusSchema } from "./keys.ts";
import { normalizeShortCode, pairingSecretSchema, SHORT_CODE_ALPHABET, SHORT_CODE_LENGTH } from "./pairing.ts";
import { pairingKeySchema } from "./pairing-keys.ts";

/** The server's half of a typed pairing code (looked up) and the new device's half (the CPace password). */
export const PAIRING_LOOKUP_LENGTH = 4;

export const PAIRING_EXCHANGE_API = {
  /** GET, signed in (the answering device): the exchange as the server holds it. */
  exchange: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}`,
  /** POST `{ approver_share, approver_confirmation }`, signed in: a device holding the current key answers. */
  answer: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}/answer`,
  /** POST `{ secret, requester_confirmation }`, anonymous: the new device found the answer good. */
  confirm: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}/confirm`,
  /** POST `{ secret }`, anonymous: the new device found the answer wrong (a wrong code); the third ends the request. */
  reject: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}/reject`,
  /** POST `{ wraps, roster, handover_confirmation }`, signed in (the answering device): sign-in and key at once. */
  approve: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}/approve`,
  /** POST `{ secret? }`: the new device (with its secret) or the answering device ends the request. */
  deny: (id: string) => `/api/pair/typed/${encodeURIComponent(id)}/deny`,
} as const;

/** The new device's password: four characters of the short-code alphabet, from a uniform random choice. */
export function makePairingPassword(random: (n: number) => Uint8Array): string {
  let password = "";
  while (password.length < SHORT_CODE_LENGTH - PAIRING_LOOKUP_LENGTH) {
    for (const byte of random(8)) {
      // 256 is a multiple of the alphabet's 32: every character is as likely.
      if (password.length < SHORT_CODE_LENGTH - PAIRING_LOOKUP_LENGTH) password += SHORT_CODE_ALPHABET[byte % SHORT_CODE_ALPHABET.length];
    }
  }
  return password;
}

/** A typed 8-character code split into the server's lookup and the password; null when it is no short code. */
export function pairingCodeParts(typed: string): { lookup: string; password: string } | null {
  const code = normalizeShortCode(typed);
  return code ? { lookup: code.slice(0, PAIRING_LOOKUP_LENGTH), password: code.slice(PAIRING_LOOKUP_LENGTH) } : null;
}

/** A half of a typed code (the lookup or the password), normalized as a short code is; undefined unless four such characters. */
export function normalizeCodeHalf(typed: string): string | undefined {
  const code = normalizeShortCode(`${"0".repeat(PAIRING_LOOKUP_LENGTH)}${typed}`);
  return code ? code.slice(PAIRING_LOOKUP_LENGTH) : undefined;
}

/** POST /api/pair/requests with a typed-code exchange: the key, its proof and the CPace share. */
export const pairingTypedRequestSchema = z.object({ requester_share: answerKeyRequestSchema.shape.approver_share.optional() });

/** Body of POST /api/pair/requests and POST /api/pair/join/:code (a typed offer code: the share for its password half). */
export const pairingRequestBodySchema = pairingKeySchema.and(pairingTypedRequestSchema).superRefine((body, ctx) => {
  if (body.requester_share !== undefined && body.public_key === undefined) {
    ctx.addIssue({ code: "custom", path: ["public_key"], message: "requester_share must come with public_key." });
  }
});
export type PairingRequestBody = z.infer<typeof pairingRequestBodySchema>;

export const pairingExchangeParamsSchema = z.object({ id: z.uuid("A request id must be a UUID.") });
export const pairingAnswerSchema = answerKeyRequestSchema;
export const pairingConfirmSchema = confirmKeyRequestSchema.extend({ secret: pairingSecretSchema });
export const pairingRejectSchema = z.object({ secret: pairingSecretSchema });
export const pairingDenySchema = z.object({ secret: pairingSecretSchema.optional() });
/** The handover of a typed pairing: as an approval's (auth-mode wraps from the answering key, the row, the tag). */
export const pairingTypedApproveSchema = approveKeyRequestSchema;

/**
 * What the CPace sides read of an approval exchange, a key request's or a typed pairing's: the asking device's key and
 * share, then the answering device's key, share and confirmation, the asking device's confirmation and the handover's;
 * `failures` counts wrong codes (the exchange ends as failed at KEY_REQUEST_MAX_FAILURES); ms since the epoch.
 */
export const approvalExchangeFields = {
  status: keyRequestStatusSchema,
  requester_public_key: z.string(),
  requester_key_id: z.string(),
  requester_share: z.string(),
  approver_public_key: z.string().nullable(),
  approver_key_id: z.string().nullable(),
  approver_share: z.string().nullable(),
  approver_confirmation: z.string().nullable(),
  requester_confirmation: z.string().nullable(),
  handover_confirmation: z.string().nullable(),
  failures: z.number().int().nonnegative(),
  expires_at: z.number(),
};

/** The exchange of a typed pairing as the server relays it. */
export const typedPairingExchangeSchema = z.object({ request_id: z.string(), ...approvalExchangeFields });
export type TypedPairingExchange = z.infer<typeof typedPairingExchangeSchema>;

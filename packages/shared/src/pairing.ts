/**
 * Sign in with a connected device: the new device asks for a pairing request and shows its code as a QR
 * link to /pair/<code>; a signed-in device approves it; the new device learns the outcome on its own live
 * channel (/api/pair/live, authenticated by a secret only it holds) and exchanges a one-time token for a session.
 *
 * "Add a device" is the other way round (decision 013): the signed-in device shows an offer as a QR link to
 * /pair/join/<code>; the new device opens it, which turns the offer into an ordinary pairing request it waits
 * on; the signed-in device hears of that on /api/pair/live (`watch`) and approves or denies it.
 */
import { z } from "zod";
import type {
  pairingJoinedSchema,
  pairingOfferCreatedSchema,
  pairingRequestCreatedSchema,
  pairingRequestDetailsSchema,
  pairServerMessageSchema,
} from "./pairing-responses.ts";
import { text } from "./text.ts";

export const PAIRING_API = {
  /** POST, anonymous: a new pairing request. */
  requests: "/api/pair/requests",
  /** GET, signed in: what asks (the long code of the QR or the short code typed). */
  request: (code: string) => `/api/pair/requests/${encodeURIComponent(code)}`,
  approve: (code: string) => `/api/pair/requests/${encodeURIComponent(code)}/approve`,
  deny: (code: string) => `/api/pair/requests/${encodeURIComponent(code)}/deny`,
  /** WebSocket, anonymous: the waiting device hears approve/deny/expiry here. */
  live: "/api/pair/live",
  /** POST, anonymous: one-time token → session cookie. */
  exchange: "/api/pair/exchange",
  /** POST, signed in: an offer to sign in another device (Add a device). */
  offers: "/api/pair/offers",
  /** POST, signed in, only by the device that made the offer, once the new device has opened it. */
  approveOffer: (offerId: string) => `/api/pair/offers/${encodeURIComponent(offerId)}/approve`,
  denyOffer: (offerId: string) => `/api/pair/offers/${encodeURIComponent(offerId)}/deny`,
  /** POST, anonymous: the new device opens an offer (its QR code or short code) and becomes its waiting device. */
  join: (code: string) => `/api/pair/join/${encodeURIComponent(code)}`,
} as const;

/** The app route a pairing code opens; the only route that can sign a device in by code. */
export const PAIR_ROUTE = "/pair";
export const pairLink = (origin: string, code: string) => `${origin}${PAIR_ROUTE}/${encodeURIComponent(code)}`;
/** The signed-in device's page that shows an offer (Add a device). */
export const ADD_DEVICE_ROUTE = "/pair/add";
/** The app route an offer's code opens on the new device; it can only lead to a sign-in approved on the other device. */
export const JOIN_ROUTE = "/pair/join";
export const joinLink = (origin: string, code: string) => `${origin}${JOIN_ROUTE}/${encodeURIComponent(code)}`;

/** A pairing request lives this long; the panel asks for a new one before that. */
export const PAIRING_TTL_MS = 2 * 60 * 1000;
/** A minted login token must be exchanged within this time. */
export const LOGIN_TOKEN_TTL_MS = 60 * 1000;

/** Crockford base32: no I, L, O, U, so a code read aloud or typed is hard to get wrong. */
export const SHORT_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const SHORT_CODE_LENGTH = 8;

/** Upper-cases, drops spaces and dashes, reads O as 0 and I/L as 1; null when it cannot be a short code. */
export function normalizeShortCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (s.length !== SHORT_CODE_LENGTH) return null;
  for (const ch of s) if (!SHORT_CODE_ALPHABET.includes(ch)) return null;
  return s;
}

/** ABCD-EFGH, as shown under the QR code. */
export const formatShortCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

export type PairingRequestCreated = z.infer<typeof pairingRequestCreatedSchema>;
export type PairingOfferCreated = z.infer<typeof pairingOfferCreatedSchema>;
export type PairingJoined = z.infer<typeof pairingJoinedSchema>;
export type PairingRequestDetails = z.infer<typeof pairingRequestDetailsSchema>;

/** Route parameter: the QR's long code or a typed short code. */
export const pairingCodeParamsSchema = z.object({
  code: text("A code").trim().min(1, "Enter the code shown on the other device.").max(128, "That code is too long."),
});

export const pairingSecretSchema = text("The secret").min(16, "Invalid secret.").max(128, "Invalid secret.");

export const pairingExchangeSchema = z.object({
  request_id: z.uuid("request_id must be a UUID."),
  secret: pairingSecretSchema,
  token: text("The token").min(16, "Invalid token.").max(128, "Invalid token."),
});
export type PairingExchangeInput = z.infer<typeof pairingExchangeSchema>;

/** The field where the approver types the short code. */
export const shortCodeFormSchema = z.object({
  code: text("A code")
    .trim()
    .min(1, "Enter the code shown on the other device.")
    .refine((v) => normalizeShortCode(v) !== null, "A code has 8 letters and digits, like ABCD-1234."),
});

/** Route parameter of the offer's approve/deny. */
export const pairingOfferParamsSchema = z.object({ offer_id: z.uuid("Unknown offer.") });

/**
 * Client → server on /api/pair/live: one message, nothing else. The server parses every frame with this.
 * `wait`: the new device, proven by its secret. `watch`: the signed-in device that made an offer, proven by its session.
 */
export const pairClientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("wait"), request_id: z.uuid(), secret: pairingSecretSchema }),
  z.object({ type: z.literal("watch"), offer_id: z.uuid() }),
]);
export type PairClientMessage = z.infer<typeof pairClientMessageSchema>;

/** Server → waiting device (`pairServerMessageSchema`). */
export type PairServerMessage = z.infer<typeof pairServerMessageSchema>;

export const PAIR_LIVE_CLOSE = {
  /** Outcome sent; nothing more will come. */
  done: 1000,
  /** A frame that is not JSON text (binary, not JSON, not UTF-8). */
  invalidFrame: 1007,
  /** JSON that is not a `wait` or `watch`, or a second message after it. */
  unknownMessage: 1008,
  /** No `wait` or `watch` within 10 s. */
  badRequest: 4400,
  /** The device watching its offer was signed out (by itself or another device): nothing more comes to it. */
  signedOut: 4403,
  /** This address already has the most waiting sockets allowed. */
  tooManyConnections: 4429,
} as const;

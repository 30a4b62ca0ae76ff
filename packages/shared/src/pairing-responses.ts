/** What the server answers and sends on the pairing routes and on /api/pair/live (decisions 004 and 013). */
import { z } from "zod";
import { typedPairingExchangeSchema } from "./pairing-exchange.ts";

/** Answer to POST /api/pair/requests. `secret` stays on the asking device; `code` and `short_code` go on screen. */
export const pairingRequestCreatedSchema = z.object({
  request_id: z.string(),
  code: z.string(),
  short_code: z.string(),
  secret: z.string(),
  /** Milliseconds until the code expires (relative, so clock skew does not matter). */
  expires_in: z.number(),
});

/** What the approving device is shown about the device that asks. */
export const pairingRequestDetailsSchema = z.object({
  /** The pairing row's id: the handover's wraps name it (`pairingPskId`). */
  request_id: z.string(),
  browser: z.string(),
  os: z.string(),
  /** Readable name, e.g. "Chrome 120 on Windows 10". */
  name: z.string(),
  ip: z.string(),
  /** When it asked, ms since the epoch. */
  created_at: z.number(),
  expires_in: z.number(),
  /** The asking device's public key and its proof of the QR link's secret (docs/protocol/encryption.md, "QR pairing handover"); null when it sent none. */
  public_key: z.string().nullable(),
  key_proof: z.string().nullable(),
  /** A typed code's exchange (pairing-exchange.ts), absent for a request without one. */
  exchange: typedPairingExchangeSchema.optional(),
});

/** Answer to POST /api/pair/offers (Add a device): `code` and `short_code` go on screen. */
export const pairingOfferCreatedSchema = z.object({
  offer_id: z.string(),
  code: z.string(),
  short_code: z.string(),
  expires_in: z.number(),
});

/** Answer to POST /api/pair/join/:code: the new device now waits on /api/pair/live like a pairing request's. */
export const pairingJoinedSchema = pairingRequestCreatedSchema.omit({ code: true, short_code: true }).extend({
  /** The signed-in device that will approve, named as in its Devices list. */
  device_name: z.string(),
});

/** A frame on /api/pair/live. The channel closes after approved, denied, expired, failed or claimed. */
export const pairServerMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("waiting"), expires_in: z.number() }),
  /** `exchange`: a typed code's exchange as approved, with the handover's tag the new device checks (pairing-exchange.ts). */
  z.object({ type: z.literal("approved"), token: z.string(), exchange: typedPairingExchangeSchema.optional() }),
  /** A typed code's exchange moved (answered, confirmed): the channel stays open. */
  z.object({ type: z.literal("exchange"), exchange: typedPairingExchangeSchema }),
  z.object({ type: z.literal("denied") }),
  z.object({ type: z.literal("expired") }),
  /** The request is unknown, the secret wrong, or its token was already handed out. */
  z.object({ type: z.literal("failed") }),
  /** To the device watching its offer (Add a device): this device opened it and waits for Approve or Deny. */
  z.object({ type: z.literal("claimed"), request: pairingRequestDetailsSchema }),
]);

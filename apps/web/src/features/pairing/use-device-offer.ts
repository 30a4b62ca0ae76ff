/**
 * Add a device, on the signed-in device: make an offer, show its QR code and short code, watch for a device
 * to open it, and make a new one when it expires unopened. Once opened, the page shows who asks.
 */

import { joinLink, makePairingPassword, type PairingOfferCreated, type PairingRequestDetails } from "@daysync/shared";
import { makePairingSecret, pairingFragment } from "../../lib/sealing/pairing-handover.ts";
import { createPairingOffer } from "./pairing-api.ts";
import { watchOffer } from "./pairing-channel.ts";
import { type RotatingCodeState, useRotatingCode } from "./use-rotating-code.ts";

/** In case the expiry notice never comes (a lost connection that did not close), a new code a bit after expiry. */
const FALLBACK_AFTER_EXPIRY_MS = 3000;

type OfferSettled =
  | { phase: "review"; offerId: string; request: PairingRequestDetails; secret: string; password: string }
  | { phase: "error"; message: string };

/**
 * An offer, the secret of its link's fragment and the password half of its typed code, kept in this page only: the
 * key handover's (docs/protocol/encryption.md, "QR pairing handover"). The code shown is the offer's lookup half, then
 * the password half.
 */
type Offer = PairingOfferCreated & { secret: string; password: string };

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

export type DeviceOfferState = RotatingCodeState<Offer, OfferSettled>;

export function useDeviceOffer() {
  return useRotatingCode<Offer, OfferSettled>({
    issue: async () => ({ ...(await createPairingOffer()), secret: makePairingSecret(), password: makePairingPassword(randomBytes) }),
    linkFor: (origin, offer) => joinLink(origin, offer.code) + pairingFragment(offer.secret),
    renewAfter: (expiresIn) => expiresIn + FALLBACK_AFTER_EXPIRY_MS,
    listen: (offer, onOutcome) => watchOffer(offer.offer_id, onOutcome),
    onSettled: (outcome, offer, setState) => {
      if (outcome.type === "claimed") {
        const { offer_id: offerId, secret, password } = offer;
        return setState({ phase: "review", offerId, request: outcome.request, secret, password });
      }
      if (outcome.type === "signed_out")
        return setState({ phase: "error", message: "This device was signed out, so it can no longer add one." });
      setState({ phase: "error", message: "This code can no longer be used." });
    },
  });
}

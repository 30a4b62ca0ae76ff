/**
 * Add a device, on the signed-in device: make an offer, show its QR code and short code, watch for a device
 * to open it, and make a new one when it expires unopened. Once opened, the page shows who asks.
 */
import { joinLink, type PairingOfferCreated, type PairingRequestDetails } from "@daysync/shared";
import { makePairingSecret, pairingFragment } from "@daysync/shared/crypto";
import { createPairingOffer } from "./pairing-api.ts";
import { watchOffer } from "./pairing-channel.ts";
import { type RotatingCodeState, useRotatingCode } from "./use-rotating-code.ts";

/** In case the expiry notice never comes (a lost connection that did not close), a new code a bit after expiry. */
const FALLBACK_AFTER_EXPIRY_MS = 3000;

type OfferSettled =
  | { phase: "review"; offerId: string; request: PairingRequestDetails; secret: string }
  | { phase: "error"; message: string };

/** An offer and the secret of its link's fragment, kept in this page only: the key handover's (docs/protocol/encryption.md, "QR pairing handover"). */
type Offer = PairingOfferCreated & { secret: string };

export type DeviceOfferState = RotatingCodeState<Offer, OfferSettled>;

export function useDeviceOffer() {
  return useRotatingCode<Offer, OfferSettled>({
    issue: async () => ({ ...(await createPairingOffer()), secret: makePairingSecret() }),
    linkFor: (origin, offer) => joinLink(origin, offer.code) + pairingFragment(offer.secret),
    renewAfter: (expiresIn) => expiresIn + FALLBACK_AFTER_EXPIRY_MS,
    listen: (offer, onOutcome) => watchOffer(offer.offer_id, onOutcome),
    onSettled: (outcome, offer, setState) => {
      if (outcome.type === "claimed") {
        return setState({ phase: "review", offerId: offer.offer_id, request: outcome.request, secret: offer.secret });
      }
      if (outcome.type === "signed_out")
        return setState({ phase: "error", message: "This device was signed out, so it can no longer add one." });
      setState({ phase: "error", message: "This code can no longer be used." });
    },
  });
}

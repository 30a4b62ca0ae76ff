/**
 * The pairing live channel (/api/pair/live) on this page's origin, through the shared channel client
 * (@daysync/live-client). The new device waits for its request's answer (`wait`, with its secret); a signed-in device
 * that shows an Add a device code watches for a device to open it (`watch`, with its session cookie).
 */
import { openPairingChannel } from "@daysync/live-client";
import { PAIR_LIVE_CLOSE, PAIRING_API, type PairClientMessage, type PairServerMessage, type TypedPairingExchange } from "@daysync/shared";

/** `signed_out`: this device, watching its offer, was signed out; `lost`: the channel closed for any other reason. */
export type PairingOutcome =
  | Exclude<PairServerMessage, { type: "waiting" } | { type: "exchange" }>
  | { type: "lost" }
  | { type: "signed_out" };

/** A typed code's exchange step (the channel stays open), for the new device's side to judge. */
export type OnExchange = (exchange: TypedPairingExchange) => void;

/** Opens the channel; `onOutcome` is called once. Returns a function that closes it. */
function openChannel(hello: PairClientMessage, onOutcome: (outcome: PairingOutcome) => void, onExchange?: OnExchange): () => void {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return openPairingChannel({
    openSocket: () => new WebSocket(`${scheme}//${window.location.host}${PAIRING_API.live}`),
    hello,
    onExchange,
    onOutcome: (outcome) => {
      // Closed before an outcome (network, server restart): the panel asks for a fresh code, unless this device was signed out.
      if (outcome.type === "closed") onOutcome(outcome.code === PAIR_LIVE_CLOSE.signedOut ? { type: "signed_out" } : { type: "lost" });
      // The web app's typed steps never end the request themselves; the server's outcome does.
      else if (outcome.type !== "ended") onOutcome(outcome);
    },
  });
}

export const waitForApproval = (
  request: { request_id: string; secret: string },
  onOutcome: (outcome: PairingOutcome) => void,
  onExchange?: OnExchange,
) => openChannel({ type: "wait", request_id: request.request_id, secret: request.secret }, onOutcome, onExchange);

export const watchOffer = (offerId: string, onOutcome: (outcome: PairingOutcome) => void) =>
  openChannel({ type: "watch", offer_id: offerId }, onOutcome);

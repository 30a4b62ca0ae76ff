/**
 * The pairing live channel (/api/pair/live): says once what it waits for, then hears the outcome once.
 * The new device waits for its request's answer (`wait`, with its secret); a signed-in device that shows
 * an Add a device code watches for a device to open it (`watch`, with its session cookie).
 */
import {
  PAIR_LIVE_CLOSE,
  PAIRING_API,
  type PairClientMessage,
  type PairServerMessage,
  pairServerMessageSchema,
  type TypedPairingExchange,
} from "@daysync/shared";

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
  const ws = new WebSocket(`${scheme}//${window.location.host}${PAIRING_API.live}`);
  let settled = false;
  const settle = (outcome: PairingOutcome) => {
    if (settled) return;
    settled = true;
    onOutcome(outcome);
  };
  ws.onopen = () => ws.send(JSON.stringify(hello));
  ws.onmessage = (e) => {
    let frame: unknown;
    try {
      frame = JSON.parse(String(e.data));
    } catch {
      return;
    }
    // A frame that is not one of the contract's is ignored; the channel's close still settles the wait.
    const message = pairServerMessageSchema.safeParse(frame);
    if (!message.success || message.data.type === "waiting") return;
    if (message.data.type === "exchange") onExchange?.(message.data.exchange);
    else settle(message.data);
  };
  // Closed before an outcome (network, server restart): the panel asks for a fresh code, unless this device was signed out.
  ws.onclose = (e) => settle(e.code === PAIR_LIVE_CLOSE.signedOut ? { type: "signed_out" } : { type: "lost" });
  return () => {
    settled = true;
    ws.onclose = null;
    ws.close();
  };
}

export const waitForApproval = (
  request: { request_id: string; secret: string },
  onOutcome: (outcome: PairingOutcome) => void,
  onExchange?: OnExchange,
) => openChannel({ type: "wait", request_id: request.request_id, secret: request.secret }, onOutcome, onExchange);

export const watchOffer = (offerId: string, onOutcome: (outcome: PairingOutcome) => void) =>
  openChannel({ type: "watch", offer_id: offerId }, onOutcome);

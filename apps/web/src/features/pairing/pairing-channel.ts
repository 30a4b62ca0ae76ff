/** The waiting device's own live channel: tells the server which request it waits for, then hears the outcome once. */
import { PAIRING_API, type PairServerMessage, pairServerMessageSchema } from "@daysync/shared";

export type PairingOutcome = Exclude<PairServerMessage, { type: "waiting" }> | { type: "lost" };

/** Opens the channel; `onOutcome` is called once. Returns a function that closes it. */
export function waitForApproval(request: { request_id: string; secret: string }, onOutcome: (outcome: PairingOutcome) => void): () => void {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${window.location.host}${PAIRING_API.live}`);
  let settled = false;
  const settle = (outcome: PairingOutcome) => {
    if (settled) return;
    settled = true;
    onOutcome(outcome);
  };
  ws.onopen = () => ws.send(JSON.stringify({ type: "wait", request_id: request.request_id, secret: request.secret }));
  ws.onmessage = (e) => {
    let frame: unknown;
    try {
      frame = JSON.parse(String(e.data));
    } catch {
      return;
    }
    // A frame that is not one of the contract's is ignored; the channel's close still settles the wait.
    const message = pairServerMessageSchema.safeParse(frame);
    if (message.success && message.data.type !== "waiting") settle(message.data);
  };
  // Closed before an outcome (network, server restart): the panel asks for a fresh code.
  ws.onclose = () => settle({ type: "lost" });
  return () => {
    settled = true;
    ws.onclose = null;
    ws.close();
  };
}

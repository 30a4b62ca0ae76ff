/** The waiting side of pairing: this terminal's own channel (/api/pair/live) on which it hears the outcome once. */
import { PAIRING_API, type PairServerMessage, pairServerMessageSchema, type TypedPairingExchange } from "@daysync/shared";
import WebSocket from "ws";
import { USER_AGENT } from "./api-client.ts";

export type PairingOutcome =
  | Exclude<PairServerMessage, { type: "waiting" } | { type: "exchange" }>
  | { type: "lost"; reason: string }
  | { type: "cancelled" }
  /** A typed code's exchange ended the request, in these words. */
  | { type: "ended"; text: string };

/** A typed code's exchange step (the channel stays open); the sentence that ends the wait, if it ended the request. */
export type OnExchange = (exchange: TypedPairingExchange) => Promise<string | undefined>;

/**
 * Resolves with the outcome; "lost" when the channel closes first or stays silent past `deadlineMs`, "cancelled" when
 * `signal` aborts (the person pressed Ctrl+C).
 */
export function waitForApproval(
  server: string,
  request: { request_id: string; secret: string },
  deadlineMs: number,
  signal?: AbortSignal,
  onExchange?: OnExchange,
): Promise<PairingOutcome> {
  return new Promise((resolve) => {
    // No Origin header: the server allows clients that are not browsers.
    const socket = new WebSocket(`${server.replace(/^http/, "ws")}${PAIRING_API.live}`, { headers: { "user-agent": USER_AGENT } });
    let settled = false;
    const settle = (outcome: PairingOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      socket.removeAllListeners();
      socket.on("error", () => {});
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.terminate();
      resolve(outcome);
    };
    // A typed code's steps are judged one after another, and the request's end waits for them: the third wrong code
    // is said as such, though the server's "failed" may arrive while that step is still being judged.
    let steps: Promise<void> = Promise.resolve();
    const settleAfterSteps = (outcome: PairingOutcome) => {
      steps = steps.then(() => settle(outcome));
    };
    const timer = setTimeout(() => settle({ type: "lost", reason: "no answer from the server" }), deadlineMs);
    const cancel = () => settle({ type: "cancelled" });
    if (signal?.aborted) return cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    socket.on("open", () => socket.send(JSON.stringify({ type: "wait", request_id: request.request_id, secret: request.secret })));
    socket.on("message", (raw) => {
      let frame: unknown;
      try {
        frame = JSON.parse(String(raw));
      } catch {
        return;
      }
      const parsed = pairServerMessageSchema.safeParse(frame);
      if (!parsed.success || parsed.data.type === "waiting") return;
      const message = parsed.data;
      if (message.type !== "exchange") return settleAfterSteps(message);
      steps = steps.then(async () => {
        const ended = await onExchange?.(message.exchange);
        if (ended) settle({ type: "ended", text: ended });
      });
    });
    socket.on("unexpected-response", (_req, res) => settleAfterSteps({ type: "lost", reason: `the server answered ${res.statusCode}` }));
    socket.on("error", (error) => settleAfterSteps({ type: "lost", reason: error.message }));
    socket.on("close", (code) => settleAfterSteps({ type: "lost", reason: `the channel closed (${code})` }));
  });
}

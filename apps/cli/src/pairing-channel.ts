/**
 * The waiting side of pairing for this terminal: the shared channel client (@daysync/live-client) on a `ws` socket,
 * with a deadline, Ctrl+C, and why a lost channel was lost in words for a person.
 */
import { openPairingChannel } from "@daysync/live-client";
import { PAIRING_API, type PairServerMessage, type TypedPairingExchange } from "@daysync/shared";
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
    /** Why the handshake failed, as `ws` says before the socket closes. */
    let refused: string | undefined;
    const openSocket = () => {
      // No Origin header: the server allows clients that are not browsers.
      const socket = new WebSocket(`${server.replace(/^http/, "ws")}${PAIRING_API.live}`, { headers: { "user-agent": USER_AGENT } });
      socket.on("unexpected-response", (_req, res) => {
        refused = `the server answered ${res.statusCode}`;
        socket.terminate();
      });
      return socket;
    };
    const settle = (outcome: PairingOutcome) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      resolve(outcome);
    };
    const stopWith = (outcome: PairingOutcome) => {
      close();
      settle(outcome);
    };
    const timer = setTimeout(() => stopWith({ type: "lost", reason: "no answer from the server" }), deadlineMs);
    const cancel = () => stopWith({ type: "cancelled" });
    const close = openPairingChannel({
      openSocket,
      hello: { type: "wait", request_id: request.request_id, secret: request.secret },
      onExchange,
      onOutcome: (outcome) => {
        if (outcome.type !== "closed") return settle(outcome);
        settle({ type: "lost", reason: refused ?? outcome.error ?? `the channel closed (${outcome.code})` });
      },
    });
    if (signal?.aborted) return cancel();
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

/** The live protocol's rules as pure functions: what a frame is, what a close code asks for, how long to wait. */
import { LIVE_CLOSE, liveEventEnvelopeSchema, type ServerLiveMessage, serverLiveMessageSchema } from "@daysync/shared";

/**
 * A frame as read: one of the protocol's, or an event of a kind `LiveEvent` does not hold (a newer server's, or an
 * encrypted discussion's, which a client that handles them reads itself), as it came.
 */
export type Frame = ServerLiveMessage | { type: "unknown-event"; seq: number; event: unknown };

/** Reads a text frame with the shared schemas; null for anything else (binary, not JSON, not a server message). */
export function parseFrame(data: unknown): Frame | null {
  if (typeof data !== "string") return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const frame = serverLiveMessageSchema.safeParse(value);
  if (frame.success) return frame.data;
  const envelope = liveEventEnvelopeSchema.safeParse(value);
  return envelope.success ? { type: "unknown-event", seq: envelope.data.seq, event: (value as { event?: unknown }).event } : null;
}

/**
 * What a close asks of the client:
 * - `signed-out`: the session is gone (4401, 4403); stop, and do not try again.
 * - `retry-later`: this device or account holds every live socket allowed (4429); try again only after the longest pause.
 * - `retry-soon`: the server is taking sockets as fast as it will (1013, a restart's storm); try again after a pause of
 *   a few seconds at least, spread at random so the devices turned away together do not come back together.
 * - `retry`: anything else (the network, a server restart, a refused frame of ours: 1007, 1008); try again with back-off.
 */
export type CloseAction = "signed-out" | "retry-later" | "retry-soon" | "retry";

export function closeAction(code: number): CloseAction {
  if (code === LIVE_CLOSE.unauthorized || code === LIVE_CLOSE.sessionRevoked) return "signed-out";
  if (code === LIVE_CLOSE.tooManyConnections) return "retry-later";
  if (code === LIVE_CLOSE.tryAgainShortly) return "retry-soon";
  return "retry";
}

export interface LiveTiming {
  /** A ping this often while connected… */
  pingEveryMs: number;
  /** …and the socket is given up when nothing at all arrives within this time after it. */
  pongTimeoutMs: number;
  /** The pause before the first retry is at most this; it doubles with each failure in a row… */
  backoffBaseMs: number;
  /** …up to this. */
  backoffMaxMs: number;
  /** After "try again shortly" (1013), the pause grows from this ceiling instead. */
  busyBackoffMs: number;
}

export const LIVE_TIMING: LiveTiming = {
  pingEveryMs: 20_000,
  pongTimeoutMs: 10_000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  busyBackoffMs: 10_000,
};

/**
 * The pause before the next attempt after `failures` failures in a row (1 for the first): random between half the
 * ceiling and the ceiling, so clients dropped together (a server restart) do not all come back at once.
 */
export function retryDelay(failures: number, timing: LiveTiming, random: () => number, minCeilingMs = 0): number {
  const grown = timing.backoffBaseMs * 2 ** Math.max(0, failures - 1);
  const ceiling = Math.max(minCeilingMs, Math.min(timing.backoffMaxMs, grown));
  return ceiling / 2 + random() * (ceiling / 2);
}

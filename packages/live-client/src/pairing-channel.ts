/**
 * The client end of the pairing channel (/api/pair/live), for any WebSocket (a browser's or `ws`): says once what it
 * waits for (`wait` for a new device's request, `watch` for an Add a device offer), then hears the outcome once.
 * A typed code's exchange steps come before it, judged one after another; the outcome waits for the steps before
 * it, so a step that ends the request is said as such even when the server's own end arrives meanwhile.
 */
import { type PairClientMessage, type PairServerMessage, pairServerMessageSchema, type TypedPairingExchange } from "@daysync/shared";
import type { LiveSocket } from "./live-client.ts";

/**
 * `closed`: the channel ended before an outcome (`code` as the socket reported it, `error` what its error said if it
 * had one); `ended`: a typed code's step ended the request, in these words.
 */
export type PairingChannelOutcome =
  | Exclude<PairServerMessage, { type: "waiting" } | { type: "exchange" }>
  | { type: "closed"; code: number; error?: string }
  | { type: "ended"; text: string };

export interface PairingChannelOptions {
  /** A new socket to /api/pair/live. */
  openSocket: () => LiveSocket;
  hello: PairClientMessage;
  /** Called once, unless the channel was closed by the returned function first. */
  onOutcome(outcome: PairingChannelOutcome): void;
  /** One step of a typed code's exchange; a sentence it returns (or resolves with) ends the request (`ended`). */
  onExchange?(exchange: TypedPairingExchange): unknown;
}

const CONNECTING = 0;
const OPEN = 1;
/** What a socket that ends without a close frame reports. */
const CLOSE_ABNORMAL = 1006;

/** Opens the channel. Returns a function that closes it without an outcome. */
export function openPairingChannel(options: PairingChannelOptions): () => void {
  const { onOutcome, onExchange } = options;
  const socket = options.openSocket();
  let settled = false;
  let error: string | undefined;
  let steps: Promise<void> = Promise.resolve();

  const close = () => {
    settled = true;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    // `ws` throws an error nobody listens for: the end of a handshake cut short is expected here.
    socket.onerror = () => {};
    if (socket.readyState === OPEN || socket.readyState === CONNECTING) {
      if (socket.terminate) socket.terminate();
      else socket.close();
    }
  };
  const settle = (outcome: PairingChannelOutcome) => {
    if (settled) return;
    close();
    onOutcome(outcome);
  };
  const afterSteps = (step: () => void | Promise<void>) => {
    steps = steps.then(step).catch((failure: unknown) => settle({ type: "closed", code: 0, error: messageOf(failure) }));
  };

  socket.onopen = () => socket.send(JSON.stringify(options.hello));
  socket.onmessage = (event) => {
    const message = parseServerFrame(event.data);
    if (!message || message.type === "waiting") return;
    if (message.type !== "exchange") return afterSteps(() => settle(message));
    afterSteps(async () => {
      if (settled) return;
      const ended = await onExchange?.(message.exchange);
      if (typeof ended === "string" && ended) settle({ type: "ended", text: ended });
    });
  };
  socket.onerror = (event) => {
    error ??= messageOf(event);
  };
  socket.onclose = (event) => {
    const code = event?.code ?? CLOSE_ABNORMAL;
    afterSteps(() => settle(error === undefined ? { type: "closed", code } : { type: "closed", code, error }));
  };
  return close;
}

/** A frame that is not one of the contract's is ignored: the channel's close still settles the wait. */
function parseServerFrame(data: unknown): PairServerMessage | undefined {
  let frame: unknown;
  try {
    frame = JSON.parse(String(data));
  } catch {
    return undefined;
  }
  const parsed = pairServerMessageSchema.safeParse(frame);
  return parsed.success ? parsed.data : undefined;
}

/** What an error (or `ws`'s error event) says; a browser's error event says nothing. */
function messageOf(value: unknown): string | undefined {
  if (value instanceof Error) return value.message;
  if (typeof value === "object" && value !== null && "message" in value && typeof value.message === "string") return value.message;
  return undefined;
}

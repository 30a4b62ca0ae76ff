/**
 * The account's live connection (/api/live) for `watch`: resumes by sequence number, reconnects after a drop
 * with a growing pause, and hands each frame over strictly one at a time, in order, across reconnections.
 */
import { API, LIVE_CLOSE, type LiveEvent, liveEventEnvelopeSchema, SESSION_COOKIE, serverLiveMessageSchema } from "@daysync/shared";
import WebSocket from "ws";
import { USER_AGENT } from "./api-client.ts";
import { networkCause, signedOut, unreachable } from "./errors.ts";

export interface LiveHandlers {
  /** The last sequence number handled: where a (re)connection resumes. */
  position(): number;
  /** One event after the position; `event` is null for a kind this client does not know. */
  onEvent(seq: number, event: LiveEvent | null): Promise<void>;
  onReady(seq: number): Promise<void>;
  /** Too far behind to replay: catch up some other way and continue from `seq`. */
  onReset(seq: number): Promise<void>;
  /** Connection news for a person (lost, back). */
  onNotice(text: string): void;
}

export interface LiveOptions {
  /** Client-side liveness check: a ping this often, and the connection is dropped when nothing answers. */
  pingEveryMs?: number;
  pongTimeoutMs?: number;
  maxBackoffMs?: number;
}

/** Runs until `stop` is called (resolves) or the session is refused (rejects with "signed out"). */
export function runLive(server: string, token: string, handlers: LiveHandlers, options: LiveOptions = {}) {
  const pingEveryMs = options.pingEveryMs ?? 25_000;
  const pongTimeoutMs = options.pongTimeoutMs ?? 10_000;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  let stopped = false;
  let socket: WebSocket | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let work = Promise.resolve();
  let finish: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => {
      stopped = true;
      clearTimeout(retryTimer);
      socket?.terminate();
      if (error) reject(error);
      else resolve();
    };
  });

  let failures = 0;
  let everConnected = false;

  function connect() {
    if (stopped) return;
    const ws = new WebSocket(`${server.replace(/^http/, "ws")}${API.live}`, {
      // No Origin header: the server lets clients that are not browsers in on their cookie alone.
      headers: { cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}`, "user-agent": USER_AGENT },
    });
    socket = ws;
    let pingTimer: NodeJS.Timeout | undefined;
    let pongTimer: NodeJS.Timeout | undefined;
    const heartbeat = () => {
      clearTimeout(pongTimer);
      pongTimer = setTimeout(() => ws.terminate(), pongTimeoutMs);
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
    };

    ws.on("open", () => {
      // Wait for what is being handled to finish, so the resume point is exact; a duplicate would be skipped anyway.
      work = work.then(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "resume", since: handlers.position() }));
      });
      pingTimer = setInterval(heartbeat, pingEveryMs);
    });
    ws.on("message", (raw) => {
      clearTimeout(pongTimer);
      let data: unknown;
      try {
        data = JSON.parse(String(raw));
      } catch {
        return;
      }
      const frame = serverLiveMessageSchema.safeParse(data);
      work = work
        .then(async () => {
          if (frame.success) {
            const message = frame.data;
            if (message.type === "event" && message.seq > handlers.position()) await handlers.onEvent(message.seq, message.event);
            else if (message.type === "ready") {
              if (everConnected && failures > 0) handlers.onNotice("Reconnected.");
              everConnected = true;
              failures = 0;
              await handlers.onReady(message.seq);
            } else if (message.type === "reset") await handlers.onReset(message.seq);
            return;
          }
          // An event kind from a newer server: count past it so the position stays exact.
          const envelope = liveEventEnvelopeSchema.safeParse(data);
          if (envelope.success && envelope.data.seq > handlers.position()) await handlers.onEvent(envelope.data.seq, null);
        })
        .catch((error: unknown) => finish(error));
    });
    let reason = "";
    ws.on("unexpected-response", (_req, res) => {
      if (res.statusCode === 401) finish(signedOut(server));
      reason = `the server answered ${res.statusCode}`;
      ws.terminate();
    });
    ws.on("error", (error) => {
      reason ||= networkCause(error);
    });
    ws.on("close", (code, closeReason) => {
      clearInterval(pingTimer);
      clearTimeout(pongTimer);
      if (stopped) return;
      if (code === LIVE_CLOSE.sessionRevoked || code === LIVE_CLOSE.unauthorized) return finish(signedOut(server));
      failures++;
      if (!everConnected && failures === 1) {
        // Not even the first connection worked: most likely a wrong address or a server that is down.
        probe().catch(() => {});
      }
      reason ||= closeReason.length ? String(closeReason) : code === 1005 || code === 1006 ? "connection dropped" : `closed with ${code}`;
      if (failures === 1) {
        handlers.onNotice(
          everConnected
            ? `The connection to ${server} was lost (${reason}); reconnecting…`
            : `Cannot open the live connection to ${server} (${reason}); retrying…`,
        );
      }
      const backoff = Math.min(maxBackoffMs, 250 * 2 ** Math.min(failures, 8));
      retryTimer = setTimeout(connect, backoff * (0.75 + Math.random() / 2));
    });
  }

  /** Before the first connection: fail at once with "cannot reach" instead of retrying an address that never worked. */
  async function probe() {
    try {
      await fetch(`${server}/api/health`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      finish(unreachable(server, networkCause(error)));
    }
  }

  connect();
  return { done, stop: () => finish() };
}

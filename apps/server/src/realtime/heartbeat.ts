/**
 * The server's pings on live sockets: a socket that has not answered the previous ping by the next one (a device
 * gone without closing, a dead network) is ended. The pings go out a slice per event-loop turn: every socket pinged
 * at once held the loop, and every send that arrived meanwhile waited that long (decision 014).
 */
import type { WebSocket } from "ws";

/** Pings per event-loop turn: a short slice of writes, so a send arriving meanwhile hardly waits. */
const PINGS_PER_TURN = 50;

export interface Heartbeat {
  /** Starts expecting the socket's answers (call once, when it opens). */
  watch(socket: WebSocket): void;
  stop(): void;
}

export function startHeartbeat(sockets: () => Iterable<WebSocket>, options: { everyMs: number; perTurn?: number }): Heartbeat {
  const { everyMs, perTurn = PINGS_PER_TURN } = options;
  const unanswered = new WeakSet<WebSocket>();
  let stopped = false;

  function pingOrEnd(socket: WebSocket) {
    if (socket.readyState !== socket.OPEN) return;
    if (unanswered.has(socket)) return socket.terminate();
    unanswered.add(socket);
    socket.ping();
  }

  function pingFrom(all: WebSocket[], from: number) {
    if (stopped) return;
    const end = Math.min(from + perTurn, all.length);
    for (let i = from; i < end; i++) pingOrEnd(all[i] as WebSocket);
    if (end < all.length) setImmediate(pingFrom, all, end);
  }

  const timer = setInterval(() => pingFrom([...sockets()], 0), everyMs);
  timer.unref();
  return {
    watch(socket) {
      socket.on("pong", () => unanswered.delete(socket));
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

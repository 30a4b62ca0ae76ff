/**
 * Writes of one event-loop turn, leaving in one go: a socket that gets several live frames in the same turn
 * (a group commit publishes its whole batch at once) holds them until the turn is over, then hands them to the
 * kernel in one `writev` instead of one write each. The frames stay separate messages, in the order sent.
 */
import type { Socket } from "node:net";

const corked = new Set<Socket>();

function releaseAll(): void {
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/** Holds this socket's writes until the current turn's I/O callbacks are done (`setImmediate`). */
export function holdWritesForTurn(socket: Socket): void {
  if (corked.has(socket) || socket.destroyed) return;
  if (corked.size === 0) setImmediate(releaseAll);
  socket.cork();
  corked.add(socket);
}

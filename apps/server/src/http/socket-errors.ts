/**
 * What an error on an open WebSocket is logged as. `ws` reports a frame the protocol refuses (over maxPayload,
 * not UTF-8, a bad opcode or mask) after it has already closed the socket with the matching code (1009, 1007,
 * 1002): the client's doing, which anyone can repeat, so it is one warning line without a stack, at most one a
 * minute for all sockets together, and the next line says how many were left out. Anything else is ours: an error
 * with its stack, and the socket dropped.
 */
import type { FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import type { Clock } from "../clock.ts";

const WINDOW_MS = 60_000;

/** `ws` names each protocol error it raises (WS_ERR_UNSUPPORTED_MESSAGE_LENGTH, …). */
const isRefusedFrame = (error: Error) => "code" in error && typeof error.code === "string" && error.code.startsWith("WS_ERR_");

/** Says whether to log now: the count left out since the last line, or undefined within a minute of it. */
function oncePerWindow(clock: Clock) {
  let quietUntil = Number.NEGATIVE_INFINITY;
  let leftOut = 0;
  return (): number | undefined => {
    const now = clock.now();
    if (now < quietUntil) {
      leftOut += 1;
      return undefined;
    }
    quietUntil = now + WINDOW_MS;
    const count = leftOut;
    leftOut = 0;
    return count;
  };
}

/** The `errorHandler` of @fastify/websocket. */
export function socketErrorHandler(clock: Clock) {
  const mayLog = oncePerWindow(clock);
  return (error: Error, socket: WebSocket, request: FastifyRequest): void => {
    if (!isRefusedFrame(error)) {
      request.log.error({ err: error }, "websocket failed");
      socket.terminate();
      return;
    }
    const suppressed = mayLog();
    if (suppressed === undefined) return;
    const code = "code" in error ? error.code : undefined;
    request.log.warn(
      { reason: error.message, code, address: request.ip, ...(suppressed > 0 && { suppressed }) },
      "websocket frame refused",
    );
  };
}

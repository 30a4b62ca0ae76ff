/** Reads what a client sends on a WebSocket: only JSON text frames that the protocol's zod schema accepts. */
import type { FastifyBaseLogger } from "fastify";
import type { RawData, WebSocket } from "ws";
import type { z } from "zod";

/** Standard close codes (RFC 6455) for frames a client should never send; both live sockets use them. */
const INVALID_FRAME = 1007;
const POLICY_VIOLATION = 1008;
const INTERNAL_ERROR = 1011;

function text(raw: RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString("utf8");
  return Buffer.isBuffer(raw) ? raw.toString("utf8") : Buffer.from(new Uint8Array(raw)).toString("utf8");
}

/**
 * Calls `handle` with each client message `schema` accepts. Any other frame closes this socket (1007 when it
 * is not JSON text, 1008 with `unknownReason` when it is not a message), and so does a handler that throws:
 * no frame can reach the process as an exception.
 */
export function onClientMessage<S extends z.ZodType>(
  socket: WebSocket,
  schema: S,
  options: { unknownReason: string; log: FastifyBaseLogger },
  handle: (message: z.infer<S>) => void,
): void {
  socket.on("message", (raw, isBinary) => {
    let value: unknown;
    try {
      if (isBinary) throw new Error("binary frame");
      value = JSON.parse(text(raw));
    } catch {
      return socket.close(INVALID_FRAME, "Messages must be JSON text");
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) return socket.close(POLICY_VIOLATION, options.unknownReason);
    try {
      handle(parsed.data);
    } catch (error) {
      options.log.error({ err: error }, "live message failed");
      socket.close(INTERNAL_ERROR, "Internal error");
    }
  });
}

/** The live protocol: what travels on a device's WebSocket, typed for both ends. */

import { z } from "zod";
import type { liveEventSchema, serverLiveMessageSchema } from "./responses.ts";

export type LiveEvent = z.infer<typeof liveEventSchema>;

/**
 * Client → server. `since` is the last sequence number the device applied (0 for none). The server parses every frame
 * with this. A `send` carries what `POST /api/messages` takes as its `body` (checked by the same schema, so a bad one
 * gets a `send_failed` naming the field, not a close); `ref` names the answer. A `delete` carries the `id` of
 * `DELETE /api/messages/:id`, checked by that route's schema (a bad one gets a `delete_failed` naming `id`; a frame without an `id` closes
 * the socket, as one without a `ref` does).
 */
export const clientLiveMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("resume"), since: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("send"), ref: z.string().min(1).max(64), body: z.unknown() }),
  z.object({ type: z.literal("delete"), ref: z.string().min(1).max(64), id: z.unknown() }),
]);
export type ClientLiveMessage = z.infer<typeof clientLiveMessageSchema>;

/** Server → client: an event, ready, reset or pong (`serverLiveMessageSchema`). */
export type ServerLiveMessage = z.infer<typeof serverLiveMessageSchema>;

/** The largest frame the server reads on a live socket; a client sends a larger message another way (HTTP). */
export const LIVE_MAX_FRAME_BYTES = 64 * 1024;

/** Close codes the server uses on the live connection. */
export const LIVE_CLOSE = {
  /** A frame that is not JSON text (binary, not JSON, not UTF-8): a bug of the client. */
  invalidFrame: 1007,
  /** JSON that is not a client message, or a second resume while one is in flight: a bug of the client. */
  unknownMessage: 1008,
  unauthorized: 4401,
  sessionRevoked: 4403,
  /** This device or this account already has the most live sockets allowed; try again later. */
  tooManyConnections: 4429,
  /** The server is taking connections at its most (a restart, everyone at once): try again in a few seconds. */
  tryAgainShortly: 1013,
} as const;

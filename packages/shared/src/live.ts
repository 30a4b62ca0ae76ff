/** The live protocol: what travels on a device's WebSocket, typed for both ends. */

import { z } from "zod";
import type { SignedInDevice } from "./devices.ts";
import type { DateMessages, Message, User } from "./entities.ts";

export type LiveEvent =
  | { kind: "day.upserted"; day: DateMessages }
  /** A message was stored; `day` is its day's summary after it (one event per message, not a day.upserted as well). */
  | { kind: "message.created"; message: Message; day: DateMessages }
  | { kind: "messages.deleted"; ids: string[] }
  | { kind: "user.updated"; user: User }
  /** A device of the user was signed in by pairing; `device.id` is its session id. */
  | { kind: "device.signed_in"; device: SignedInDevice }
  /** A device of the user was signed out (from the Devices list or by itself). */
  | { kind: "device.signed_out"; id: string };

/** Client → server. `since` is the last sequence number the device applied (0 for none). The server parses every frame with this. */
export const clientLiveMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("resume"), since: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  z.object({ type: z.literal("ping") }),
]);
export type ClientLiveMessage = z.infer<typeof clientLiveMessageSchema>;

/** Server → client. */
export type ServerLiveMessage =
  /** One change of the user's data, numbered by a per-user sequence. */
  | { type: "event"; seq: number; event: LiveEvent }
  /** Replay done: the device is current up to `seq`. */
  | { type: "ready"; seq: number }
  /** The device is too far behind to replay; it refetches everything and continues from `seq`. */
  | { type: "reset"; seq: number }
  | { type: "pong" };

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
} as const;

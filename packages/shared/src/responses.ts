/**
 * What the server sends, as zod schemas: a client that is not this repository's web app (the `daysync`
 * command line) checks every answer and frame it receives against these instead of trusting a cast.
 * Each schema is typed against the entity it describes, so the two cannot drift apart. Objects are not
 * strict: a newer server may add fields.
 */
import { z } from "zod";
import type { DeviceListItem, SignedInDevice } from "./devices.ts";
import type { ApiErrorBody, DateMessages, Message, SearchResult, User } from "./entities.ts";
import type { LiveEvent, ServerLiveMessage } from "./live.ts";
import type { PairingRequestCreated, PairServerMessage } from "./pairing.ts";

const messageType = z.enum(["text", "image", "video", "file", "audio"]);

export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  actual_subscription_id: z.string(),
  title_subscription: z.string(),
  subscription_type_id: z.number(),
  max_message_duration: z.number().nullable(),
  price_per_month: z.number(),
  subscription_duration: z.number(),
  date_subscription: z.string(),
  description_subscription: z.string(),
  date_expiration_subscription: z.string(),
  timestamps: z.number(),
}) satisfies z.ZodType<User>;

export const daySchema = z.object({
  id: z.string(),
  date: z.string(),
  last_message_time: z.string(),
  last_message_type: z.union([messageType, z.literal("")]),
  last_message: z.string(),
  count_messages: z.number(),
  user_id: z.string(),
  timestamps: z.number(),
}) satisfies z.ZodType<DateMessages>;

export const messageSchema = z.object({
  id: z.string(),
  type: messageType,
  content: z.string(),
  filename: z.string(),
  file_url: z.string(),
  date: z.string(),
  time: z.string(),
  url: z.string(),
  user_id: z.string(),
  date_message_id: z.string(),
  timestamps: z.number(),
}) satisfies z.ZodType<Message>;

export const signedInDeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  browser: z.string(),
  os: z.string(),
  ip: z.string(),
  signed_in_at: z.number(),
  last_seen_at: z.number(),
}) satisfies z.ZodType<SignedInDevice>;

const deviceListItemSchema = signedInDeviceSchema.extend({ current: z.boolean() }) satisfies z.ZodType<DeviceListItem>;

const searchResultSchema = z.object({ message: messageSchema, day: daySchema }) satisfies z.ZodType<SearchResult>;

/** Bodies of the HTTP answers, by route (docs/API.md). */
export const responseSchemas = {
  /** login, register, me, pairing exchange */
  user: z.object({ user: userSchema }),
  days: z.object({ days: z.array(daySchema) }),
  dayMessages: z.object({ day: daySchema, messages: z.array(messageSchema) }),
  /** POST /api/messages and GET /api/messages/:id */
  message: z.object({ message: messageSchema, day: daySchema }),
  search: z.object({ results: z.array(searchResultSchema) }),
  devices: z.object({ devices: z.array(deviceListItemSchema) }),
  uploadLimit: z.object({ max_file_size: z.number(), label: z.string() }),
  pairingRequest: z.object({
    request_id: z.string(),
    code: z.string(),
    short_code: z.string(),
    secret: z.string(),
    expires_in: z.number(),
  }) satisfies z.ZodType<PairingRequestCreated>,
  error: z.object({
    error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
  }) satisfies z.ZodType<ApiErrorBody>,
};

export const liveEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("day.upserted"), day: daySchema }),
  z.object({ kind: z.literal("message.created"), message: messageSchema, day: daySchema }),
  z.object({ kind: z.literal("messages.deleted"), ids: z.array(z.string()) }),
  z.object({ kind: z.literal("user.updated"), user: userSchema }),
  z.object({ kind: z.literal("device.signed_in"), device: signedInDeviceSchema }),
  z.object({ kind: z.literal("device.signed_out"), id: z.string() }),
]) satisfies z.ZodType<LiveEvent>;

const seq = z.number().int().nonnegative();

/** A frame on /api/live. An event of a kind this client does not know fails here; see `liveEventEnvelopeSchema`. */
export const serverLiveMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("event"), seq, event: liveEventSchema }),
  z.object({ type: z.literal("ready"), seq }),
  z.object({ type: z.literal("reset"), seq }),
  z.object({ type: z.literal("pong") }),
]) satisfies z.ZodType<ServerLiveMessage>;

/** Any event frame, whatever its kind: lets an older client count the sequence past kinds it does not know. */
export const liveEventEnvelopeSchema = z.object({ type: z.literal("event"), seq });

/** A frame on /api/pair/live. */
export const pairServerMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("waiting"), expires_in: z.number() }),
  z.object({ type: z.literal("approved"), token: z.string() }),
  z.object({ type: z.literal("denied") }),
  z.object({ type: z.literal("expired") }),
  z.object({ type: z.literal("failed") }),
]) satisfies z.ZodType<PairServerMessage>;

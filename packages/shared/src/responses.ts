/**
 * What the server sends, as zod schemas: the one definition of every answer body and live/pairing frame (the sign-in
 * pages' answers live in account-responses.ts, so those pages do not make the rest as they start).
 * The entity types (`User`, `Message`, `LiveEvent`, ...) are inferred from these, the server's routes are
 * typed (and in tests checked) by them, and clients (the web app, the `daysync` command line) read answers
 * through them. Objects are not strict: a newer server may add fields. Field names are the spec's.
 */
import { z } from "zod";
import { apiErrorBodySchema, providersResponseSchema, sessionResponseSchema, userResponseSchema, userSchema } from "./account-responses.ts";
import { linkedIdentitySchema } from "./identities.ts";
import { recoveryStateSchema } from "./key-recovery.ts";
import { deviceKeySchema, epochReasonSchema, keysStateSchema } from "./keys.ts";
import { approvalExchangeFields, typedPairingExchangeSchema } from "./pairing-exchange.ts";
import {
  pairingJoinedSchema,
  pairingOfferCreatedSchema,
  pairingRequestCreatedSchema,
  pairingRequestDetailsSchema,
} from "./pairing-responses.ts";

export const messageTypeSchema = z.enum(["text", "image", "video", "file", "audio"]);

/**
 * A user's calendar day. Its summary (last message, count) covers only unexpired messages, wherever it is
 * served; it is empty ("" and 0) once every message of the day has expired.
 */
export const daySchema = z.object({
  id: z.string(),
  /** M/d/yyyy of the sending device. */
  date: z.string(),
  last_message_time: z.string(),
  last_message_type: z.union([messageTypeSchema, z.literal("")]),
  /** The start of the newest live message's text, or its file name. */
  last_message: z.string(),
  /** Set when `last_message` is a sealed preview (decision 020): the epoch to open it with. */
  last_message_epoch: z.number().int().positive().optional(),
  /** With `last_message_epoch`: the message and the sending session the sealed preview is bound to. */
  last_message_id: z.string().optional(),
  last_message_device_id: z.string().optional(),
  count_messages: z.number(),
  user_id: z.string(),
  /** Creation time, ms since the epoch. */
  timestamps: z.number(),
});

/** The user's device a message came from: its session id and its name (renamed or not) when it was last known. */
export const messageDeviceSchema = z.object({ id: z.string(), name: z.string() });

export const messageSchema = z.object({
  id: z.string(),
  type: messageTypeSchema,
  content: z.string(),
  filename: z.string(),
  file_url: z.string(),
  /** M/d/yyyy */
  date: z.string(),
  /** h:mm a */
  time: z.string(),
  url: z.string(),
  user_id: z.string(),
  date_message_id: z.string(),
  /** Creation time, ms since the epoch; retention counts from here. */
  timestamps: z.number(),
  /** A file message's size in bytes (absent for text, and for files stored before sizes were kept). */
  file_size: z.number().int().nonnegative().optional(),
  /**
   * Which of the owner's devices sent it. Only ever shown to the owner (left out wherever others may see the
   * message), and absent for messages stored before devices were recorded.
   */
  device: messageDeviceSchema.optional(),
  /**
   * Set when the message was sealed on its device (decision 020): `content` (a file's `filename`) and `preview` are
   * then sealed values of this epoch; absent for messages stored in clear.
   */
  epoch: z.number().int().positive().optional(),
  preview: z.string().optional(),
  /** A sealed file's key, sealed under `epoch` (its bytes are records under this key); absent otherwise. */
  file_key: z.string().optional(),
});

export const searchResultSchema = z.object({ message: messageSchema, day: daySchema });

/** What every member may know of a discussion (the same for all members, so it is serialised once). */
export const discussionSchema = z.object({
  /** The space id, used in the API and app routes. */
  id: z.string(),
  /** The ID to read out, type or share: 10 characters of Crockford base32 (shown as ABCDE-FGHJK). */
  public_id: z.string(),
  title: z.string(),
  /** ms since the epoch */
  created_at: z.number(),
  /** When it ends and is deleted with its messages and files, ms since the epoch. */
  ends_at: z.number(),
  member_count: z.number().int().nonnegative(),
  /** The newest live message's time, ms since the epoch; null for none. */
  last_message_at: z.number().nullable(),
  /**
   * Present for an end-to-end encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): its title
   * is then "" (the sealed one is in `GET /api/discussions/:id/room`), and `current_generation` the key to seal under.
   */
  encrypted: z.literal(true).optional(),
  current_generation: z.number().int().positive().optional(),
});

export const discussionRoleSchema = z.enum(["owner", "member"]);
export type DiscussionRole = z.infer<typeof discussionRoleSchema>;

/** Why a user is no longer in a discussion: its creator ended it, it expired, or they left or were removed. */
export const discussionClosedReasonSchema = z.enum(["ended", "expired", "left", "removed"]);
export type DiscussionClosedReason = z.infer<typeof discussionClosedReasonSchema>;
/** How a member stopped being one (kept on their member row). */
export const departureReasonSchema = discussionClosedReasonSchema.extract(["left", "removed"]);
export type DepartureReason = z.infer<typeof departureReasonSchema>;

/** A member as the others see them: an opaque member id (never the user id) and the name chosen for this discussion. */
export const discussionMemberSchema = z.object({ id: z.string(), display_name: z.string(), role: discussionRoleSchema });

/** A discussion as one member sees it: with their own member id, name and role, and how many messages they have not read. */
export const myDiscussionSchema = discussionSchema.extend({
  member_id: z.string(),
  display_name: z.string(),
  role: discussionRoleSchema,
  unread: z.number().int().nonnegative(),
});

/**
 * A message in a discussion: a day's message without its owner's user id, day or device, and with its author as
 * the members know them. An author who has left keeps the name they had.
 */
export const discussionMessageSchema = messageSchema
  .pick({
    id: true,
    type: true,
    content: true,
    filename: true,
    file_url: true,
    file_size: true,
    date: true,
    time: true,
    url: true,
    timestamps: true,
  })
  .extend({
    discussion_id: z.string(),
    author: z.object({ id: z.string(), display_name: z.string() }),
    /**
     * In an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): the room key generation
     * `content` (a file's `filename`), `preview` and `file_key` are sealed under, and the sender's member key id.
     */
    generation: z.number().int().positive().optional(),
    sender_key_id: z.string().optional(),
    preview: z.string().optional(),
    file_key: z.string().optional(),
  });

/**
 * Someone came or went, as the members see it between the messages: the creator started it, a member joined, left or
 * was removed. Read from the member rows, so one who left and joined again shows only their latest join.
 */
export const memberChangeSchema = z.object({
  member_id: z.string(),
  display_name: z.string(),
  kind: z.enum(["created", "joined", "left", "removed"]),
  /** ms since the epoch */
  at: z.number(),
});
export type MemberChange = z.infer<typeof memberChangeSchema>;

export const discussionDetailsSchema = z.object({
  discussion: myDiscussionSchema,
  members: z.array(discussionMemberSchema),
  /** Oldest first. */
  member_changes: z.array(memberChangeSchema),
});

/** A phone, a tablet, a computer's browser, or the `daysync` command line. */
export const DEVICE_KINDS = ["phone", "tablet", "computer", "terminal"] as const;

export const signedInDeviceSchema = z.object({
  /** The session id. */
  id: z.string(),
  /** The name the user gave it, else a readable name from browser and OS, e.g. "Chrome 120 on Windows 10". */
  name: z.string(),
  browser: z.string(),
  os: z.string(),
  /** What kind of device, from its User-Agent: the Devices list draws each kind with its own icon. */
  kind: z.enum(DEVICE_KINDS),
  ip: z.string(),
  /** ms since the epoch */
  signed_in_at: z.number(),
  last_seen_at: z.number(),
  /**
   * End-to-end encryption (decision 020): `can_read` holds the account's current key, `waiting` has a key pair but
   * no other device handed it the current key yet, `denied` the same but its latest request was denied on another
   * device, `none` has made no key pair (not started since the upgrade).
   */
  key_status: z.enum(["can_read", "waiting", "denied", "none"]),
});

/**
 * A locked device's request to be approved by a typed code (docs/protocol/encryption.md, "Approving a device"), as
 * every device of the account sees it: the asking device's share and, as the exchange goes on, the answering
 * device's key, share and confirmation, the asking device's confirmation and the handover's. The server only relays.
 */
export const keyRequestSchema = z.object({
  id: z.string(),
  /** The requesting session; `device` is how the Devices list shows it (name, browser, address). */
  session_id: z.string(),
  device: signedInDeviceSchema,
  ...approvalExchangeFields,
  /** Once a device answered: its session. */
  approver_session_id: z.string().nullable(),
  /** ms since the epoch */
  created_at: z.number(),
});
export type KeyRequest = z.infer<typeof keyRequestSchema>;

export const deviceListItemSchema = signedInDeviceSchema.extend({
  /** The device asking. */
  current: z.boolean(),
  /**
   * Its key id (decision 020), null before it made its key pair: the device that signs it out never wraps a later
   * epoch for this key, whatever the server lists as holders (docs/protocol/encryption.md).
   */
  key_id: z.string().nullable().optional(),
});

/** Bodies of the HTTP answers, by route (docs/API.md). */
export const responseSchemas = {
  /** GET /api/health, /api/health/live, POST /api/push/subscriptions */
  ok: z.object({ ok: z.literal(true) }),
  /** GET /api/health/ready (200 or 503): each dependency checked, and how its check went */
  ready: z.object({ ok: z.boolean(), checks: z.record(z.string(), z.enum(["ok", "failed", "timeout"])) }),
  /** GET /api/auth/providers */
  providers: providersResponseSchema,
  /** GET /api/auth/identities */
  identities: z.object({ identities: z.array(linkedIdentitySchema), has_password: z.boolean() }),
  /** POST /api/auth/link/:provider: where to send the browser */
  linkStart: z.object({ redirect: z.string() }),
  /** login, register, me, retention, pairing exchange */
  user: userResponseSchema,
  /** GET /api/session: null for a visitor */
  session: sessionResponseSchema,
  days: z.object({ days: z.array(daySchema) }),
  dayMessages: z.object({ day: daySchema, messages: z.array(messageSchema) }),
  /** POST /api/messages and GET /api/messages/:id */
  message: z.object({ message: messageSchema, day: daySchema }),
  search: z.object({ results: z.array(searchResultSchema) }),
  /** `next`: the id to ask `before` for the following page; null on the last. */
  messagesPage: z.object({ messages: z.array(messageSchema), next: z.string().nullable() }),
  /** DELETE /api/messages/:id and DELETE /api/days/:id/messages: how many messages went */
  deleted: z.object({ deleted: z.number().int().nonnegative() }),
  devices: z.object({ devices: z.array(deviceListItemSchema) }),
  /** PATCH /api/devices/:id */
  device: z.object({ device: deviceListItemSchema }),
  /** POST /api/devices/sign-out-others: how many devices were signed out. */
  signedOutOthers: z.object({ signed_out: z.number() }),
  uploadLimit: z.object({ max_file_size: z.number(), label: z.string() }),
  /** GET /api/storage: bytes of files the account holds (unfinished uploads included) and its plan allows */
  storage: z.object({ used: z.number().int().nonnegative(), limit: z.number().int().nonnegative() }),
  pushPublicKey: z.object({ public_key: z.string() }),
  pairingRequest: pairingRequestCreatedSchema,
  pairingDetails: z.object({ request: pairingRequestDetailsSchema }),
  /** A typed pairing code's exchange (pairing-exchange.ts). */
  pairingTyped: z.object({ exchange: typedPairingExchangeSchema }),
  /** `session_token`: only for a client that keeps its session itself (client-kind.ts), never in a cookie then. */
  pairingExchange: userResponseSchema.extend({ session_token: z.string().optional() }),
  pairingOffer: pairingOfferCreatedSchema,
  pairingJoined: pairingJoinedSchema,
  /** GET /api/discussions */
  discussions: z.object({ discussions: z.array(myDiscussionSchema) }),
  /** GET/PATCH /api/discussions/:id, POST /api/discussions (201), POST .../join/:publicId, POST .../extend */
  discussion: discussionDetailsSchema,
  /** GET /api/discussions/:id/messages */
  discussionMessages: z.object({ discussion: myDiscussionSchema, messages: z.array(discussionMessageSchema) }),
  /** POST /api/discussions/:id/messages (201, or 200 for a resend) */
  discussionMessage: z.object({ message: discussionMessageSchema }),
  /** GET /api/keys, POST /api/keys/epochs (201) */
  keys: keysStateSchema,
  /** PUT /api/keys/device */
  deviceKey: deviceKeySchema,
  /** POST /api/keys/requests (201), and each step of one */
  keyRequest: z.object({ request: keyRequestSchema }),
  /** GET /api/keys/requests: the account's open requests, oldest first */
  keyRequests: z.object({ requests: z.array(keyRequestSchema) }),
  /** GET and PUT /api/keys/recovery */
  recovery: recoveryStateSchema,
  error: apiErrorBodySchema,
};

export type UserResponse = z.infer<typeof responseSchemas.user>;
export type SessionResponse = z.infer<typeof responseSchemas.session>;
export type DaysResponse = z.infer<typeof responseSchemas.days>;
export type DayMessagesResponse = z.infer<typeof responseSchemas.dayMessages>;
export type MessageSavedResponse = z.infer<typeof responseSchemas.message>;
export type SearchResponse = z.infer<typeof responseSchemas.search>;
export type DeletedResponse = z.infer<typeof responseSchemas.deleted>;
export type DevicesResponse = z.infer<typeof responseSchemas.devices>;
export type DeviceResponse = z.infer<typeof responseSchemas.device>;
export type SignedOutOthersResponse = z.infer<typeof responseSchemas.signedOutOthers>;
export type UploadLimitResponse = z.infer<typeof responseSchemas.uploadLimit>;
export type StorageResponse = z.infer<typeof responseSchemas.storage>;
export type PushPublicKeyResponse = z.infer<typeof responseSchemas.pushPublicKey>;
export type PairingDetailsResponse = z.infer<typeof responseSchemas.pairingDetails>;
export type PairingExchangeResponse = z.infer<typeof responseSchemas.pairingExchange>;

export const liveEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("day.upserted"), day: daySchema }),
  /** A message was stored; `day` is its day's summary after it (one event per message, not a day.upserted as well). */
  z.object({ kind: z.literal("message.created"), message: messageSchema, day: daySchema }),
  z.object({ kind: z.literal("messages.deleted"), ids: z.array(z.string()) }),
  z.object({ kind: z.literal("user.updated"), user: userSchema }),
  /** A device of the user was signed in by pairing; `device.id` is its session id. */
  z.object({ kind: z.literal("device.signed_in"), device: signedInDeviceSchema }),
  /** A device of the user was signed out (from the Devices list or by itself). */
  z.object({ kind: z.literal("device.signed_out"), id: z.string() }),
  /** A device of the user was given a new name; its messages carry it from now on. */
  z.object({ kind: z.literal("device.renamed"), id: z.string(), name: z.string() }),
  /** A discussion the user is a member of was created, joined, renamed or extended, or its members changed. */
  z.object({
    kind: z.literal("discussion.upserted"),
    discussion: discussionSchema,
    members: z.array(discussionMemberSchema),
    member_changes: z.array(memberChangeSchema),
  }),
  /** The user is no longer in this discussion: its creator ended it, it expired, or they left or were removed. */
  z.object({ kind: z.literal("discussion.closed"), id: z.string(), reason: discussionClosedReasonSchema }),
  z.object({ kind: z.literal("discussion.message.created"), message: discussionMessageSchema, discussion: discussionSchema }),
  z.object({ kind: z.literal("discussion.messages.deleted"), discussion_id: z.string(), ids: z.array(z.string()) }),
  /**
   * The account has a new key epoch (decision 020): each device reads its wraps with GET /api/keys. `session_id` is
   * the device that made it.
   */
  z.object({ kind: z.literal("key.epoch_created"), epoch: z.number(), reason: epochReasonSchema, session_id: z.string() }),
  /**
   * A device that held `epoch` was removed (docs/protocol/encryption.md, "Rotation and revocation"): a device that still holds it makes the next
   * epoch for the devices that remain, so the removed one cannot read what is sent afterwards.
   */
  z.object({ kind: z.literal("key.rotation_due"), epoch: z.number() }),
  /** A locked device asked to start over, or the request was cancelled or used: each device reads GET /api/keys. */
  z.object({ kind: z.literal("key.start_over_changed") }),
  /** A locked device of the account asks to be approved by a typed code. */
  z.object({ kind: z.literal("key.requested"), request: keyRequestSchema }),
  /** A request moved on (answered, confirmed, approved, a wrong code, denied, failed, or replaced by a newer one: expired). */
  z.object({ kind: z.literal("key.request_updated"), request: keyRequestSchema }),
]);

const seq = z.number().int().nonnegative();

/** A frame refusing what a client asked on the socket: the HTTP answer's status and body, and `Retry-After`'s seconds. */
const socketRefusal = {
  ref: z.string(),
  status: z.number().int(),
  retry_after: z.number().int().positive().optional(),
  ...apiErrorBodySchema.shape,
};

/** A frame on /api/live. An event of a kind this client does not know fails here; see `liveEventEnvelopeSchema`. */
export const serverLiveMessageSchema = z.discriminatedUnion("type", [
  /** One change of the user's data, numbered by a per-user sequence. */
  z.object({ type: z.literal("event"), seq, event: liveEventSchema }),
  /** Replay done: the device is current up to `seq`. */
  z.object({ type: z.literal("ready"), seq }),
  /** The device is too far behind to replay; it refetches everything and continues from `seq`. */
  z.object({ type: z.literal("reset"), seq }),
  z.object({ type: z.literal("pong") }),
  /** A send over the socket was stored (or had been, for a retry of the same id): what the HTTP send answers. */
  z.object({ type: z.literal("sent"), ref: z.string(), created: z.boolean(), message: messageSchema, day: daySchema }),
  /** A send over the socket was refused: the HTTP answer's status and body, and `Retry-After`'s seconds for a 429. */
  z.object({ type: z.literal("send_failed"), ...socketRefusal }),
  /** A deletion over the socket was done: what `DELETE /api/messages/:id` answers. */
  z.object({ type: z.literal("deleted"), ref: z.string(), ...responseSchemas.deleted.shape }),
  /** A deletion over the socket was refused (404 for an unknown or foreign id): as the HTTP deletion would have been. */
  z.object({ type: z.literal("delete_failed"), ...socketRefusal }),
]);

/** Any event frame, whatever its kind: lets an older client count the sequence past kinds it does not know. */
export const liveEventEnvelopeSchema = z.object({ type: z.literal("event"), seq });

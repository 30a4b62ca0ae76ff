/**
 * Encrypted discussions ("rooms") as the API carries them (docs/protocol/encryption.md, "Encrypted discussions"). The
 * server checks shapes only: what is sealed, tagged or wrapped is the devices' to open and verify.
 */
import { z } from "zod";
import type { ServerLiveMessage } from "./live.ts";
import { liveEventSchema } from "./responses.ts";
import { MAX_FILENAME_LENGTH, MAX_MESSAGE_LENGTH, messageFields } from "./schemas.ts";
import { epochOfSealedValue, SEALED_PREVIEW_LENGTH, sealedValueMaxLength, sealedValueSchema } from "./sealed-messages.ts";
import { SEALED_FILE_TYPES } from "./sealed-uploads.ts";

const roomPath = (id: string) => `/api/discussions/${encodeURIComponent(id)}/room`;

export const ROOMS_API = {
  /** POST `CreateRoomInput`: a new encrypted discussion under the id the device chose (409 when taken). */
  create: "/api/discussions/encrypted",
  /** GET by ID: which discussion it is (room id, generation, whether ID joining is on), before joining. */
  lookup: (publicId: string) => `/api/discussions/join/${encodeURIComponent(publicId)}/room`,
  /** POST `LinkJoinInput`: join with the link's key. */
  joinByLink: (publicId: string) => `/api/discussions/join/${encodeURIComponent(publicId)}/link`,
  /** POST `JoinRequestInput`: ask to join by typed ID. */
  requestJoin: (publicId: string) => `/api/discussions/join/${encodeURIComponent(publicId)}/requests`,
  /** GET: the caller's own join request (the joiner's view). POST `.../confirm`: the joiner's confirmation. */
  ownRequest: (requestId: string) => `/api/discussions/join-requests/${encodeURIComponent(requestId)}`,
  confirm: (requestId: string) => `/api/discussions/join-requests/${encodeURIComponent(requestId)}/confirm`,
  /** POST `JoinRefusalInput`: the joiner's device says the member's answer did not check out (the request is closed). */
  refuse: (requestId: string) => `/api/discussions/join-requests/${encodeURIComponent(requestId)}/refuse`,
  /** GET: the room's state as the caller may see it. PATCH `{ id_joining }`: the creator turns ID joining on or off. */
  state: roomPath,
  /** POST `RotationInput`: generation n+1. */
  generations: (id: string) => `${roomPath(id)}/generations`,
  /** PUT `OwnValuesInput`: the caller's own sealed member seed and room keys; and optionally its sealed name. */
  own: (id: string) => `${roomPath(id)}/own`,
  /** GET: the open join requests (members). */
  requests: (id: string) => `${roomPath(id)}/requests`,
  /** POST `JoinAnswerInput` (a member), then `AdmitInput` (the same member). */
  answer: (id: string, requestId: string) => `${roomPath(id)}/requests/${encodeURIComponent(requestId)}/answer`,
  admit: (id: string, requestId: string) => `${roomPath(id)}/requests/${encodeURIComponent(requestId)}/admit`,
} as const;

export const ROOM_ERROR_CODES = {
  /** 409: a discussion already has this id. */
  roomIdTaken: "room_id_taken",
  /** 409: a rotation to a generation another device made first, or one that skips a generation. */
  generationTaken: "generation_taken",
  generationSkipped: "generation_skipped",
  /** 409: a message sealed under a generation that is not the current one. */
  generationNotCurrent: "generation_not_current",
  /** 409: joining by typed ID is off for this discussion. */
  idJoiningOff: "id_joining_off",
  /** 409: a step of a join request out of its order, or by someone other than who may take it. */
  requestState: "join_request_state",
  /** 409: a clear message or join into an encrypted discussion, or a sealed one into a clear discussion. */
  encryptedRoom: "encrypted_discussion",
} as const;

/** How long a join request by typed ID stays open. */
export const JOIN_REQUEST_TTL_MS = 10 * 60_000;

const b64 = (field: string, max = 512) =>
  z
    .string({ error: `${field} is required.` })
    .min(1, `${field} is required.`)
    .max(max, `${field} is too long.`)
    .regex(/^[A-Za-z0-9_-]+$/, `${field} must be base64url.`);
const generation = z
  .number({ error: "generation must be a number." })
  .int("generation must be a whole number.")
  .min(1)
  .max(2 ** 31 - 1);
const MAX_NAME_SEALED = sealedValueMaxLength(200);
export const sealedNameSchema = sealedValueSchema("sealed_name", MAX_NAME_SEALED);
const ownValue = sealedValueSchema("value", 200);

/** A member entry as a device posts it (room-members.ts `TaggedMember`, snake-cased), with the member's sealed name. */
export const roomEntrySchema = z.object({
  key_id: b64("key_id", 128),
  public_key: b64("public_key", 256),
  name_tag: b64("name_tag", 128),
  added_by: b64("added_by", 128).nullable(),
  admission: z.enum(["creator", "link", "code", "carried"], { error: "admission must be creator, link, code or carried." }),
  admission_id: z
    .string()
    .max(64)
    .regex(/^[^|]*$/, "admission_id must not hold a |."),
  tag: b64("tag", 128),
  sealed_name: sealedNameSchema,
});
export type RoomEntryInput = z.infer<typeof roomEntrySchema>;

export const roomWrapSchema = z.object({
  generation,
  recipient_key_id: b64("recipient_key_id", 128),
  sender_key_id: b64("sender_key_id", 128),
  enc: b64("enc", 256),
  ciphertext: b64("ciphertext", 512),
});
export type RoomWrapInput = z.infer<typeof roomWrapSchema>;

/** The member seed (generation 0) and room keys sealed for the account's own devices (room-own.ts). */
export const ownValuesSchema = z.object({
  values: z
    .array(
      z.object({
        generation: z
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1),
        value: ownValue,
      }),
    )
    .max(64),
  /** The caller's name sealed under the current generation (after an admission by typed ID). */
  sealed_name: sealedNameSchema.optional(),
});
export type OwnValuesInput = z.infer<typeof ownValuesSchema>;

export const createRoomSchema = z.object({
  id: z.uuid("id must be a UUID."),
  sealed_title: sealedValueSchema("sealed_title", sealedValueMaxLength(200)),
  entry: roomEntrySchema,
  own: ownValuesSchema.shape.values,
});
export type CreateRoomInput = z.infer<typeof createRoomSchema>;

export const linkJoinSchema = z.object({ generation, entry: roomEntrySchema, own: ownValuesSchema.shape.values });
export type LinkJoinInput = z.infer<typeof linkJoinSchema>;

export const joinRequestSchema = z.object({
  /** The name asked to join as: sent before the joiner holds any key, so the server sees it. */
  name: z.string().trim().min(1, "name is required.").max(60, "A name is at most 60 characters."),
  joiner_key_id: b64("joiner_key_id", 128),
  joiner_public_key: b64("joiner_public_key", 256),
  share: b64("share", 128),
});
export type JoinRequestInput = z.infer<typeof joinRequestSchema>;

export const joinAnswerSchema = z.object({
  member_key_id: b64("member_key_id", 128),
  member_public_key: b64("member_public_key", 256),
  share: b64("share", 128),
  confirmation: b64("confirmation", 128),
});
export type JoinAnswerInput = z.infer<typeof joinAnswerSchema>;
export const joinConfirmSchema = z.object({ confirmation: b64("confirmation", 128) });
/**
 * The joiner's device refusing the answer (RoomError "wrongCode": the code typed was not the one it shows), so the
 * member's page says so at once instead of waiting for a confirmation that will not come.
 */
export const joinRefusalSchema = z.object({
  reason: z.literal("wrong_code", { error: "reason must be wrong_code." }),
});
export type JoinRefusalInput = z.infer<typeof joinRefusalSchema>;
export const admitSchema = z.object({
  entry: roomEntrySchema,
  wraps: z.array(roomWrapSchema).min(1).max(1000),
  handover_tag: b64("handover_tag", 128),
});
export type AdmitInput = z.infer<typeof admitSchema>;

export const rotationSchema = z.object({
  generation,
  sender_key_id: b64("sender_key_id", 128),
  entries: z.array(roomEntrySchema).min(1).max(1000),
  wraps: z.array(roomWrapSchema).min(1).max(1000),
});
export type RotationInput = z.infer<typeof rotationSchema>;

export const idJoiningSchema = z.object({ id_joining: z.boolean({ error: "id_joining must be true or false." }) });
export const joinRequestParamsSchema = z.object({ requestId: z.uuid("Request id must be a UUID.") });
export const roomRequestParamsSchema = z.object({
  id: z.uuid("Discussion id must be a UUID."),
  requestId: z.uuid("Request id must be a UUID."),
});

/** A text message sealed under the room's current generation, by the sender's member key. */
export const sendRoomMessageSchema = z
  .object({
    ...messageFields,
    generation,
    sender_key_id: b64("sender_key_id", 128),
    content: sealedValueSchema("content", sealedValueMaxLength(MAX_MESSAGE_LENGTH)),
    preview: sealedValueSchema("preview", sealedValueMaxLength(SEALED_PREVIEW_LENGTH)),
  })
  .refine((m) => epochOfSealedValue(m.content) === m.generation && epochOfSealedValue(m.preview) === m.generation, {
    message: "content and preview must be sealed under the message's generation.",
    path: ["generation"],
  });
export type SendRoomMessageInput = z.infer<typeof sendRoomMessageSchema>;

/**
 * A file sent into an encrypted discussion, as its tus Upload-Metadata carries it: the discussion, the generation and
 * sender key it is sealed under and by, its declared type, and its name, preview and key sealed (room-sealing.ts
 * `sealRoomFile`). Its bytes are records under its own key (file-records.ts), as a sealed file of a day's.
 */
export const roomUploadMetadataSchema = z
  .object({
    discussion_id: z.uuid("discussion_id must be a UUID."),
    generation: z
      .string({ error: "generation is required." })
      .regex(/^[1-9][0-9]{0,9}$/, "generation must be a positive whole number.")
      .transform(Number),
    sender_key_id: b64("sender_key_id", 128),
    type: z.enum(SEALED_FILE_TYPES, { error: "type must be one of image, video, audio or file." }),
    filename: sealedValueSchema("filename", sealedValueMaxLength(MAX_FILENAME_LENGTH)),
    preview: sealedValueSchema("preview", sealedValueMaxLength(MAX_FILENAME_LENGTH)),
    file_key: sealedValueSchema("file_key", 200),
    message_id: z.uuid("message_id must be a UUID."),
    date: messageFields.date,
    time: messageFields.time,
    filetype: z.never({ error: "A sealed upload has no filetype in clear: declare its type." }).optional(),
  })
  .refine((f) => [f.filename, f.preview, f.file_key].every((v) => epochOfSealedValue(v) === f.generation), {
    message: "filename, preview and file_key must be sealed under the upload's generation.",
    path: ["generation"],
  });
export type RoomUploadMetadata = z.infer<typeof roomUploadMetadataSchema>;

/** Whether Upload-Metadata is an encrypted discussion's file: it names a generation. */
export const isRoomUpload = (metadata: Record<string, unknown>): boolean => "generation" in metadata;

// Answers.

export const roomEntryAnswerSchema = roomEntrySchema.extend({ member_id: z.string(), left: z.boolean() });
export const joinRequestAnswerSchema = z.object({
  id: z.string(),
  discussion_id: z.string(),
  name: z.string(),
  joiner_key_id: z.string(),
  joiner_public_key: z.string(),
  share: z.string(),
  member_key_id: z.string().nullable(),
  member_public_key: z.string().nullable(),
  answer_share: z.string().nullable(),
  answer_confirmation: z.string().nullable(),
  joiner_confirmation: z.string().nullable(),
  /** `refused`: the joiner's device found the answer wrong; the request is closed (the joiner asks again). */
  state: z.enum(["open", "answered", "confirmed", "admitted", "refused"]),
  /** Once admitted: the joiner's entry, the wraps for its key and the handover's tag. */
  entry: roomEntrySchema.nullable(),
  wraps: z.array(roomWrapSchema),
  handover_tag: z.string().nullable(),
  created_at: z.number(),
  expires_at: z.number(),
});
export type JoinRequestAnswer = z.infer<typeof joinRequestAnswerSchema>;

export const roomStateSchema = z.object({
  id: z.string(),
  public_id: z.string(),
  sealed_title: z.string(),
  current_generation: z.number(),
  id_joining: z.boolean(),
  created_at: z.number(),
  ends_at: z.number(),
  /** The caller's member id. */
  member_id: z.string(),
  generations: z.array(z.object({ generation: z.number(), made_by: z.string().nullable(), entries: z.array(roomEntryAnswerSchema) })),
  /** Only the wraps addressed to the caller's member keys. */
  wraps: z.array(roomWrapSchema.extend({ handover_tag: z.string().nullable() })),
  own: z.array(z.object({ generation: z.number(), value: z.string() })),
});
export type RoomState = z.infer<typeof roomStateSchema>;

export const roomLookupSchema = z.object({
  id: z.string(),
  encrypted: z.boolean(),
  current_generation: z.number(),
  id_joining: z.boolean(),
});

export const roomResponseSchemas = {
  room: roomStateSchema,
  lookup: roomLookupSchema,
  request: z.object({ request: joinRequestAnswerSchema }),
  requests: z.object({ requests: z.array(joinRequestAnswerSchema) }),
};

/**
 * The live events of encrypted discussions. They say what changed, never what it holds: a device reads the state or
 * the request over HTTP. Kept apart from `LiveEvent`: a client that does not handle rooms counts them as unknown.
 */
export const roomLiveEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("discussion.join_requested"), discussion_id: z.string(), request_id: z.string() }),
  z.object({
    kind: z.literal("discussion.join_updated"),
    discussion_id: z.string(),
    request_id: z.string(),
    state: z.enum(["answered", "confirmed", "admitted", "refused"]),
  }),
  z.object({
    kind: z.literal("discussion.member_joined"),
    discussion_id: z.string(),
    member_id: z.string(),
    generation: z.number(),
    key_id: z.string(),
  }),
  /** A member left or was removed: a remaining member's device makes the next generation without `key_ids`. */
  z.object({ kind: z.literal("discussion.member_left"), discussion_id: z.string(), member_id: z.string(), key_ids: z.array(z.string()) }),
  z.object({ kind: z.literal("discussion.rotated"), discussion_id: z.string(), generation: z.number(), sender_key_id: z.string() }),
]);
export type RoomLiveEvent = z.infer<typeof roomLiveEventSchema>;

/** Every event the server logs and sends: the clients' `LiveEvent`s and the rooms'. */
export const serverLiveEventSchema = z.union([liveEventSchema, roomLiveEventSchema]);
export type ServerLiveEvent = z.infer<typeof serverLiveEventSchema>;

/** A frame the server sends on /api/live: the clients' frames, or an event of an encrypted discussion. */
export type ServerFrame = ServerLiveMessage | { type: "event"; seq: number; event: ServerLiveEvent };

/**
 * The personal space's sealed messages as the API carries them (docs/protocol/encryption.md, "Sealed messages"). The server only checks a
 * sealed value's envelope and length; what is inside is the devices' to open and validate.
 */
import { z } from "zod";
import { API_ERROR_CODES } from "./entities.ts";
import { MAX_MESSAGE_LENGTH, messageFields, sendMessageSchema } from "./schemas.ts";

/** `v1.<epoch>.<base64url(nonce ‖ ciphertext ‖ tag)>`: version, a positive epoch, at least the 28 bytes of overhead. */
export const SEALED_VALUE_PATTERN = /^v1\.([1-9][0-9]{0,9})\.([A-Za-z0-9_-]{38,})$/;

/** What a device says of sealed messages it cannot show, and of sends it cannot make yet (decision 020). */
export const SEALED_TEXT = {
  /** A value that did not open, or opened to what no device sends. */
  undecryptable: "This message could not be decrypted",
  /** Sealed under an epoch this locked device does not hold yet. */
  locked: "Locked: approve this device to read it",
  /** Sealed under an epoch from before "Start over": no device holds it any more. */
  beforeReset: "Sent before the key was reset; it cannot be read",
  /** A locked device's composer, and the CLI's send. */
  approveToSend: "Approve this device from one of your other devices to read your messages",
  /** 409 `key_rotation_due`: the outbox keeps the message and seals it again under the next epoch. */
  rotating: "Your devices are moving to a new key; this is sent as soon as that is done.",
  /** A browser on a plain-http address other than this computer: it has no WebCrypto, so it cannot seal or open. */
  insecure: "This address is not secure, so this browser cannot encrypt: open Daysync over https:// to read and send your messages",
  /** The server knows a key for this session that the device no longer holds (its stored data was cleared). */
  lost: "This device no longer has its key, so it cannot read your messages",
  /**
   * A message or file with no epoch dated after this device saw the account keyed: the server wrote it, since the
   * person's devices only send sealed from then on. Never copied, never passed to `watch --exec`.
   */
  notEncrypted: "Not encrypted: not sent by your devices",
  /** The server calls current an epoch below one this device holds or saw: it will not seal under it. */
  epochRolledBack:
    "The server offered an older key than this device already has, so nothing was sent. Someone may be interfering with the server",
  /** A discussion in clear's header (one created before discussions were encrypted): the server can read what is written there. */
  notEndToEnd: "Not end-to-end encrypted",
  /** An encrypted discussion's header (docs/protocol/encryption.md, "Encrypted discussions"). */
  endToEnd: "End-to-end encrypted",
  /** A discussion's message sealed under a key generation this device does not hold (before it joined by link). */
  roomLocked: "Locked: sent under a key of this discussion this device does not hold",
} as const;

/** A device that has seen a newer key than the server now names. */
export const epochRolledBackText = (told: number, seen: number) =>
  `${SEALED_TEXT.epochRolledBack} (the server says key ${told}, this device already has key ${seen}).`;

/** The most messages one page of `GET /api/messages` holds. */
export const MESSAGES_PAGE_MAX = 200;

/** How many characters of a text the sealed `preview` holds (a file's preview is its whole name). */
export const SEALED_PREVIEW_LENGTH = 140;

/** The longest sealed value of a text of `maxChars` UTF-16 units (at most 3 UTF-8 bytes each, 28 of overhead). */
export function sealedValueMaxLength(maxChars: number): number {
  return "v1.4294967295.".length + Math.ceil(((3 * maxChars + 28 + SEND_NUMBER_MAX_BYTES) * 4) / 3);
}

/** Room for the sender's number sealed before a text or file name (crypto/send-numbers.ts). */
export const SEND_NUMBER_MAX_BYTES = 512;

const epoch = z.number({ error: "epoch must be a number." }).int("epoch must be a whole number.").positive("epoch must be positive.");

/** A sealed value's envelope, at most `maxLength` characters long (the server cannot see inside). */
export function sealedValueSchema(field: string, maxLength: number) {
  return z
    .string({ error: `${field} is required.` })
    .max(maxLength, `${field} is longer than any sealed value can be.`)
    .regex(SEALED_VALUE_PATTERN, `${field} must be a sealed value (v1.<epoch>.<base64url>).`);
}

/** The epoch a sealed value names (0 when it is not one). */
export function epochOfSealedValue(value: string): number {
  return Number(SEALED_VALUE_PATTERN.exec(value)?.[1] ?? 0);
}

/** A text message sealed on the sending device: its text and its preview, both under `epoch`. */
export const sendSealedMessageSchema = z
  .object({
    ...messageFields,
    epoch,
    content: sealedValueSchema("content", sealedValueMaxLength(MAX_MESSAGE_LENGTH)),
    preview: sealedValueSchema("preview", sealedValueMaxLength(SEALED_PREVIEW_LENGTH)),
  })
  .refine((m) => epochOfSealedValue(m.content) === m.epoch && epochOfSealedValue(m.preview) === m.epoch, {
    message: "content and preview must be sealed under the message's epoch.",
    path: ["epoch"],
  });
export type SendSealedMessageInput = z.infer<typeof sendSealedMessageSchema>;

/** Which contract a send's body follows: sealed when it names an epoch, in clear otherwise. */
export function sendSchemaFor(body: unknown): typeof sendMessageSchema | typeof sendSealedMessageSchema {
  return typeof body === "object" && body !== null && "epoch" in body ? sendSealedMessageSchema : sendMessageSchema;
}

/** A page of the personal space's live messages, newest first (decision 020: search on the device pages through them). */
export const messagesPageQuerySchema = z.object({
  /** The last message of the previous page: this page starts just before it. */
  before: z.uuid("before must be a message id.").optional(),
  limit: z.coerce
    .number({ error: "limit must be a number." })
    .int("limit must be a whole number.")
    .min(1, "limit must be at least 1.")
    .max(MESSAGES_PAGE_MAX, `limit must be at most ${MESSAGES_PAGE_MAX}.`)
    .default(MESSAGES_PAGE_MAX),
});

/** A 409 code saying the send was sealed under an epoch the account has left: sync the keys and seal it again. */
export function isKeyMovedCode(code: string): boolean {
  return code === API_ERROR_CODES.keyRotationDue || code === API_ERROR_CODES.keyEpochChanged;
}

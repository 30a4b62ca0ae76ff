/** Signed-in devices of a user (one per session) and Web Push subscriptions of those devices. */
import { z } from "zod";
import type { DEVICE_KINDS, deviceListItemSchema, signedInDeviceSchema } from "./responses.ts";
import { chosenName, hasNoNul, isWellFormed, loneSurrogateMessage, nulMessage } from "./text.ts";

export const DEVICES_API = {
  /** GET: the user's signed-in devices. */
  list: "/api/devices",
  /** DELETE: signs that device out. PATCH `{ name }`: renames it. */
  one: (id: string) => `/api/devices/${encodeURIComponent(id)}`,
  /** POST: signs out every device of the user but the asking one. */
  signOutOthers: "/api/devices/sign-out-others",
} as const;

export const PUSH_API = {
  /** GET: the server's VAPID public key (applicationServerKey). */
  publicKey: "/api/push/public-key",
  /** POST: keep this device's subscription; DELETE with `{ endpoint }`: forget it. */
  subscriptions: "/api/push/subscriptions",
} as const;

export type SignedInDevice = z.infer<typeof signedInDeviceSchema>;
export type DeviceListItem = z.infer<typeof deviceListItemSchema>;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export const deviceIdParamsSchema = z.object({ id: z.uuid("Device id must be a UUID.") });

export const DEVICE_NAME_MAX = 60;

/** Renaming a device, in the Devices list and on the server. */
export const renameDeviceSchema = z.object({
  name: chosenName("A device name", "Enter a name for the device.")
    .trim()
    .min(1, "Enter a name for the device.")
    .max(DEVICE_NAME_MAX, `A device name must be at most ${DEVICE_NAME_MAX} characters.`),
});
export type RenameDeviceInput = z.infer<typeof renameDeviceSchema>;

const base64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, "Keys must be base64url.");

/** PushSubscription.toJSON() of the browser. */
export const pushSubscriptionSchema = z.object({
  endpoint: z
    .url("endpoint must be a URL.")
    .max(2048, "endpoint is too long.")
    .refine(hasNoNul, nulMessage("endpoint"))
    .refine(isWellFormed, loneSurrogateMessage("endpoint")),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    p256dh: base64url.min(80, "p256dh is not a P-256 public key.").max(100, "p256dh is not a P-256 public key."),
    auth: base64url.min(16, "auth must be 16 bytes.").max(32, "auth must be 16 bytes."),
  }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

export const pushUnsubscribeSchema = z.object({
  endpoint: z
    .url("endpoint must be a URL.")
    .max(2048)
    .refine(hasNoNul, nulMessage("endpoint"))
    .refine(isWellFormed, loneSurrogateMessage("endpoint")),
});

/** The fields a sealed push's preview is bound to (decision 020): the service worker opens it with the device's keys. */
export const sealedPushPreviewSchema = z.object({
  user_id: z.string(),
  epoch: z.number().int().positive(),
  preview: z.string(),
  date: z.string(),
  time: z.string(),
  device_id: z.string(),
});
export type SealedPushPreview = z.infer<typeof sealedPushPreviewSchema>;

/**
 * A new message: the service worker shows a notification, one per day (tag `day-<day_id>`). For a discussion's
 * message `day_id` is the discussion's id (one notification per discussion) and `discussion_id` says so.
 */
export const newMessagePushSchema = z.object({
  kind: z.literal("message.created"),
  title: z.string(),
  body: z.string(),
  day_id: z.string(),
  discussion_id: z.string().optional(),
  message_id: z.string(),
  /** The message's type; a text's notification offers a Copy action (not for a discussion's message). */
  message_type: z.enum(["text", "image", "video", "audio", "file"]).optional(),
  /** App path to open when the notification is tapped. */
  url: z.string(),
  /** A sealed message (decision 020): `body` is empty, and the service worker opens this preview for the notification. */
  sealed: sealedPushPreviewSchema.optional(),
  /**
   * A message of an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"): `title` and `body`
   * are empty, and a device that holds the generation opens this sealed preview (its place: the message's id, type,
   * date, time and sender key).
   */
  room: z
    .object({
      generation: z.number().int().positive(),
      sender_key_id: z.string(),
      preview: z.string(),
      type: z.string(),
      date: z.string(),
      time: z.string(),
    })
    .optional(),
});
export type NewMessagePush = z.infer<typeof newMessagePushSchema>;

/** Messages were deleted: the service worker closes any notification still showing one of them. */
export const deletedMessagesPushSchema = z.object({
  kind: z.literal("messages.deleted"),
  /** These messages went. */
  message_ids: z.array(z.string()),
  /** Every message of these days went (a cleared day: its ids could outgrow a push message). */
  day_ids: z.array(z.string()),
});
export type DeletedMessagesPush = z.infer<typeof deletedMessagesPushSchema>;

/** What a push message carries to the service worker (encrypted end to end, RFC 8291), parsed there with this. */
export const pushPayloadSchema = z.discriminatedUnion("kind", [newMessagePushSchema, deletedMessagesPushSchema]);
export type PushPayload = z.infer<typeof pushPayloadSchema>;

/** What `closeDeletedNotifications` needs of a service worker registration (the app's and the worker's). */
interface NotificationSource {
  getNotifications(): Promise<ReadonlyArray<{ data: unknown; close(): void }>>;
}

/** Closes the notifications that show a deleted message; a notification's data names its message and day. */
export async function closeDeletedNotifications(registration: NotificationSource, deleted: Omit<DeletedMessagesPush, "kind">) {
  const messages = new Set(deleted.message_ids);
  const days = new Set(deleted.day_ids);
  for (const notification of await registration.getNotifications()) {
    const shown = notification.data as { message_id?: unknown; day_id?: unknown } | null;
    if (messages.has(String(shown?.message_id)) || days.has(String(shown?.day_id))) notification.close();
  }
}

/** The day view a notification opens. */
export const dayPath = (dayId: string) => `/dashboard/days/${dayId}`;

/**
 * The query parameter by which a notification's Copy action asks the app to copy one of the user's messages: a
 * service worker cannot write the clipboard, so it opens (or focuses) the app at this address and the page copies.
 */
export const COPY_MESSAGE_PARAM = "copy";

/** The notification's action that copies its text. */
export const COPY_ACTION = "copy";

/** Where a tap on a message's notification goes: its day, or with the Copy action the same page asked to copy it. */
export function notificationTarget(data: unknown, action: string): string {
  const shown = (data ?? {}) as { url?: unknown; message_id?: unknown; message_type?: unknown; discussion_id?: unknown };
  const url = typeof shown.url === "string" ? shown.url : "/dashboard";
  if (action !== COPY_ACTION || shown.message_type !== "text" || shown.discussion_id || typeof shown.message_id !== "string") return url;
  return `${url}?${COPY_MESSAGE_PARAM}=${encodeURIComponent(shown.message_id)}`;
}

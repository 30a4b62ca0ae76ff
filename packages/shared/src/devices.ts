/** Signed-in devices of a user (one per session) and Web Push subscriptions of those devices. */
import { z } from "zod";
import type { deviceListItemSchema, signedInDeviceSchema } from "./responses.ts";

export const DEVICES_API = {
  /** GET: the user's signed-in devices. */
  list: "/api/devices",
  /** DELETE: signs that device out. */
  one: (id: string) => `/api/devices/${encodeURIComponent(id)}`,
} as const;

export const PUSH_API = {
  /** GET: the server's VAPID public key (applicationServerKey). */
  publicKey: "/api/push/public-key",
  /** POST: keep this device's subscription; DELETE with `{ endpoint }`: forget it. */
  subscriptions: "/api/push/subscriptions",
} as const;

export type SignedInDevice = z.infer<typeof signedInDeviceSchema>;
export type DeviceListItem = z.infer<typeof deviceListItemSchema>;

export const deviceIdParamsSchema = z.object({ id: z.uuid("Device id must be a UUID.") });

const base64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, "Keys must be base64url.");

/** PushSubscription.toJSON() of the browser. */
export const pushSubscriptionSchema = z.object({
  endpoint: z.url("endpoint must be a URL.").max(2048, "endpoint is too long."),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    p256dh: base64url.min(80, "p256dh is not a P-256 public key.").max(100, "p256dh is not a P-256 public key."),
    auth: base64url.min(16, "auth must be 16 bytes.").max(32, "auth must be 16 bytes."),
  }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

export const pushUnsubscribeSchema = z.object({ endpoint: z.url("endpoint must be a URL.").max(2048) });

/** What a push message carries to the service worker (encrypted end to end, RFC 8291). */
export interface PushPayload {
  kind: "message.created";
  title: string;
  body: string;
  day_id: string;
  message_id: string;
  /** App path to open when the notification is tapped. */
  url: string;
}

/** The day view a notification opens. */
export const dayPath = (dayId: string) => `/dashboard/days/${dayId}`;

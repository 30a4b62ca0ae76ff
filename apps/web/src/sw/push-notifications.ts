/**
 * Web Push in the service worker: a notification per new message, unless Daysync is open and visible; a
 * notification whose message was deleted closes.
 */
import {
  COPY_ACTION,
  closeDeletedNotifications,
  type NewMessagePush,
  notificationTarget,
  type PushPayload,
  pushPayloadSchema,
} from "@daysync/shared";
import { openedPushBody, openedRoomPush } from "../lib/sealing/push-previews.ts";

/** The push's payload, parsed; null for anything else (a push service's test message, a malformed one). */
function readPayload(data: PushMessageData | null): PushPayload | null {
  try {
    const parsed = pushPayloadSchema.safeParse(data?.json());
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function handlePush(sw: ServiceWorkerGlobalScope, data: PushMessageData | null): Promise<void> {
  const payload = readPayload(data);
  if (payload?.kind === "messages.deleted") return closeDeletedNotifications(sw.registration, payload);
  if (payload?.kind === "message.created") return showMessageNotification(sw, payload);
}

async function showMessageNotification(sw: ServiceWorkerGlobalScope, payload: NewMessagePush): Promise<void> {
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  // The open app already shows the message live; a notification would only repeat it.
  if (windows.some((w) => w.visibilityState === "visible")) return;
  const copyable = payload.message_type === "text" && !payload.discussion_id;
  // An encrypted discussion's push carries no title or text in clear: both are opened here, as the page opens them.
  const { title, body } = payload.room
    ? await openedRoomPush(payload, payload.room)
    : { title: payload.title, body: payload.sealed ? await openedPushBody(payload, payload.sealed) : payload.body };
  const options: NotificationOptions & { actions?: Array<{ action: string; title: string }> } = {
    body,
    // One notification per day: a newer message replaces the older one.
    tag: `day-${payload.day_id}`,
    icon: "/icons/icon-192.png",
    badge: "/icons/badge-96.png",
    data: {
      url: payload.url,
      message_id: payload.message_id,
      day_id: payload.day_id,
      message_type: payload.message_type,
      discussion_id: payload.discussion_id,
    },
    // A text is one tap from the clipboard: the app opens and copies it (a service worker cannot).
    ...(copyable ? { actions: [{ action: COPY_ACTION, title: "Copy" }] } : {}),
  };
  await sw.registration.showNotification(title, options);
}

/**
 * Tapping a notification opens its day, and its Copy action the day asked to copy the text: in a Daysync window
 * that is already open, else in a new one.
 */
export async function openNotificationTarget(sw: ServiceWorkerGlobalScope, data: unknown, action = ""): Promise<void> {
  const target = new URL(notificationTarget(data, action), sw.location.origin);
  if (target.origin !== sw.location.origin) return;
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === sw.location.origin);
  if (open) {
    // Focusing is allowed only in answer to the tap itself; a window that cannot be focused is still steered.
    const focused = await open.focus().catch(() => open);
    try {
      if (await focused.navigate(target.href)) return;
    } catch {
      // A window this worker does not control cannot be steered; open a new one instead.
    }
  }
  await sw.clients.openWindow(target.href);
}

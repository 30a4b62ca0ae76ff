/**
 * Web Push in the service worker: a notification per new message, unless Daysync is open and visible; a
 * notification whose message was deleted closes.
 */
import { COPY_ACTION, closeDeletedNotifications, type DeletedMessagesPush, type NewMessagePush, notificationTarget } from "@daysync/shared";

function readJson(data: PushMessageData | null): Record<string, unknown> | null {
  try {
    const value: unknown = data?.json();
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

function asNewMessage(value: Record<string, unknown>): NewMessagePush | null {
  return value.kind === "message.created" && typeof value.url === "string" ? (value as unknown as NewMessagePush) : null;
}

function asDeleted(value: Record<string, unknown>): DeletedMessagesPush | null {
  return value.kind === "messages.deleted" && isStringArray(value.message_ids) && isStringArray(value.day_ids)
    ? { kind: "messages.deleted", message_ids: value.message_ids, day_ids: value.day_ids }
    : null;
}

export async function handlePush(sw: ServiceWorkerGlobalScope, data: PushMessageData | null): Promise<void> {
  const value = readJson(data);
  if (!value) return;
  const deleted = asDeleted(value);
  if (deleted) return closeDeletedNotifications(sw.registration, deleted);
  const created = asNewMessage(value);
  if (created) return showMessageNotification(sw, created);
}

async function showMessageNotification(sw: ServiceWorkerGlobalScope, payload: NewMessagePush): Promise<void> {
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  // The open app already shows the message live; a notification would only repeat it.
  if (windows.some((w) => w.visibilityState === "visible")) return;
  const copyable = payload.message_type === "text" && !payload.discussion_id;
  const options: NotificationOptions & { actions?: Array<{ action: string; title: string }> } = {
    body: payload.body,
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
  await sw.registration.showNotification(payload.title, options);
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

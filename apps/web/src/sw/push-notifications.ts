/** Web Push in the service worker: a notification per new message, unless Daysync is open and visible. */
import type { PushPayload } from "@daysync/shared";

function parsePayload(data: PushMessageData | null): PushPayload | null {
  try {
    const value = data?.json() as Partial<PushPayload> | undefined;
    return value?.kind === "message.created" && typeof value.url === "string" ? (value as PushPayload) : null;
  } catch {
    return null;
  }
}

export async function showMessageNotification(sw: ServiceWorkerGlobalScope, data: PushMessageData | null): Promise<void> {
  const payload = parsePayload(data);
  if (!payload) return;
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  // The open app already shows the message live; a notification would only repeat it.
  if (windows.some((w) => w.visibilityState === "visible")) return;
  await sw.registration.showNotification(payload.title, {
    body: payload.body,
    // One notification per day: a newer message replaces the older one.
    tag: `day-${payload.day_id}`,
    icon: "/icons/icon-192.png",
    badge: "/icons/badge-96.png",
    data: { url: payload.url },
  });
}

/** Tapping a notification opens its day: in a Daysync window that is already open, else in a new one. */
export async function openNotificationTarget(sw: ServiceWorkerGlobalScope, data: unknown): Promise<void> {
  const path = typeof (data as { url?: unknown })?.url === "string" ? (data as { url: string }).url : "/dashboard";
  const target = new URL(path, sw.location.origin);
  if (target.origin !== sw.location.origin) return;
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === sw.location.origin);
  if (open) {
    try {
      const focused = await open.focus();
      if (await focused.navigate(target.href)) return;
    } catch {
      // A window this worker does not control cannot be steered; open a new one instead.
    }
  }
  await sw.clients.openWindow(target.href);
}

/**
 * A text from another device, as it comes: a notification showing it with a Copy action, and, with the option on,
 * copied at once. Only texts this browser opened: never a file, nor one it cannot read.
 */
import type { Message } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { heldEpochsOf, keyedAtOf } from "../../../web/src/lib/sealing/device-keys.ts";
import { notify } from "../lib/notify.ts";
import { autoCopyOn } from "../lib/options.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import { copyInBackground } from "./clipboard.ts";
import type { Session } from "./extension-session.ts";

const NOTIFICATION_PREFIX = "message-";
/** The texts of the notifications shown, for their Copy (kept while this worker runs, as the notifications are). */
const shown = new Map<string, string>();
const SHOWN_MAX = 50;

export async function onIncomingText(session: Session, message: Message): Promise<void> {
  if (message.type !== "text") return;
  const status = session.keys.getStatus();
  const opened = await openMessage(session.connection.user_id, heldEpochsOf(status) ?? new Map(), message, keyedAtOf(status));
  if (opened.state !== "opened" && opened.state !== "clear") return;
  const id = `${NOTIFICATION_PREFIX}${message.id}`;
  if (shown.size >= SHOWN_MAX) shown.delete(shown.keys().next().value ?? "");
  shown.set(id, opened.text);
  const from = message.device?.name ? EXTENSION_TEXT.fromDevice(message.device.name) : EXTENSION_TEXT.fromOtherDevice;
  notify(id, from, opened.text, [{ title: EXTENSION_TEXT.copy }]);
  if (await autoCopyOn()) await copyInBackground(opened.text);
}

/** A notification's Copy (its only button). */
export async function onNotificationCopy(notificationId: string): Promise<void> {
  const text = shown.get(notificationId);
  if (text === undefined) return;
  if (await copyInBackground(text)) chrome.notifications.clear(notificationId);
}

/**
 * A text from another device, as it comes: a notification showing it with a Copy action, and, with the option on,
 * copied at once. Only texts this browser opened: never a file, nor one it cannot read.
 */
import { API, type Message, responseSchemas } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { api } from "../../../web/src/lib/api-client.ts";
import { heldEpochsOf, keyedAtOf } from "../../../web/src/lib/sealing/device-keys.ts";
import { notify } from "../lib/notify.ts";
import { autoCopyOn } from "../lib/options.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import { copyInBackground } from "./clipboard.ts";
import { currentSession, type Session } from "./extension-session.ts";

const NOTIFICATION_PREFIX = "message-";
/** The texts of the notifications shown, for their Copy (kept while this worker runs, as the notifications are). */
const shown = new Map<string, string>();
const SHOWN_MAX = 50;

/** The text of a text message opened on this browser; undefined for a file or one it cannot open. */
async function textOf(session: Session, message: Message): Promise<string | undefined> {
  if (message.type !== "text") return undefined;
  const status = session.keys.getStatus();
  const opened = await openMessage(session.connection.user_id, heldEpochsOf(status) ?? new Map(), message, keyedAtOf(status));
  return opened.state === "opened" || opened.state === "clear" ? opened.text : undefined;
}

export async function onIncomingText(session: Session, message: Message): Promise<void> {
  const text = await textOf(session, message);
  if (text === undefined) return;
  const id = `${NOTIFICATION_PREFIX}${message.id}`;
  if (shown.size >= SHOWN_MAX) shown.delete(shown.keys().next().value ?? "");
  shown.set(id, text);
  const from = message.device?.name ? EXTENSION_TEXT.fromDevice(message.device.name) : EXTENSION_TEXT.fromOtherDevice;
  notify(id, from, text, [{ title: EXTENSION_TEXT.copy }]);
  if (await autoCopyOn()) await copyInBackground(text);
}

/**
 * A notification's Copy (its only button). Its text is kept while this worker runs; a worker started again since
 * fetches the message and opens it anew.
 */
export async function onNotificationCopy(notificationId: string): Promise<void> {
  let text = shown.get(notificationId);
  const session = await currentSession();
  if (text === undefined && session && notificationId.startsWith(NOTIFICATION_PREFIX)) {
    const messageId = notificationId.slice(NOTIFICATION_PREFIX.length);
    const found = await api.get(API.message(messageId), responseSchemas.message).catch(() => undefined);
    text = found ? await textOf(session, found.message) : undefined;
  }
  if (text === undefined) return;
  if (await copyInBackground(text)) chrome.notifications.clear(notificationId);
}

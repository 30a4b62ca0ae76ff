/**
 * The extension's background: the context menu, the queue of what is sent, the live connection and the session.
 * Listeners are added at the top, as a Manifest V3 worker must; each start of the worker (browser start, install, a
 * page saying it just paired) makes the menu, follows the session live and sends what waits.
 */
import "../../../web/src/lib/zod-jitless.ts";
import type { Message } from "@daysync/shared";
import { loadConnection } from "../lib/connection.ts";
import { backgroundMessageSchema, notifyPages, type SendAnswer } from "../lib/messages.ts";
import { notify } from "../lib/notify.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import { forgetTodayCopy } from "../lib/today-copy.ts";
import { createMenu, onMenuClick } from "./context-menu.ts";
import { currentSession, endSession } from "./extension-session.ts";
import { sendImage } from "./image-send.ts";
import { onIncomingText, onNotificationCopy } from "./incoming.ts";
import { followLive, type LiveCallbacks, stopLive } from "./live-session.ts";
import { clearQueue, flushQueue, type QueueEvents, queueText } from "./send-queue.ts";
import { addUnread, clearUnread } from "./unread.ts";

/** Signed out from Devices (or refused by the server): everything kept for the session goes. */
const signedOut = () =>
  endSession(async () => {
    stopLive();
    await clearQueue();
    await clearUnread();
    await forgetTodayCopy();
    await notifyPages();
  });

const queueEvents: QueueEvents = {
  refused: (_content, reason) => notify(`refused-${crypto.randomUUID()}`, EXTENSION_TEXT.notSent, reason),
  signedOut,
};

const liveCallbacks: LiveCallbacks = {
  async onMessage(message: Message, { mine, news }) {
    if (!mine && news) {
      await addUnread();
      const session = await currentSession();
      if (session) await onIncomingText(session, message).catch(() => undefined);
    }
    await notifyPages();
  },
  onReady: () => void flushQueue(queueEvents),
  onSignedOut: signedOut,
};

/** Queues a text; a refusal is said in a notification when nothing else says it (the menu; the popup shows it itself). */
async function sendText(text: string, sayRefusal: boolean): Promise<SendAnswer> {
  const queued = await queueText(text, queueEvents);
  if (!queued.queued && sayRefusal) notify(`refused-${crypto.randomUUID()}`, EXTENSION_TEXT.notSent, queued.reason);
  return queued;
}

const onMenuClicked = (info: chrome.contextMenus.OnClickData) =>
  onMenuClick(info, async (what) => {
    if ("text" in what) {
      await sendText(what.text, true);
      return;
    }
    const session = await currentSession();
    const problem = session ? await sendImage(session, what.image) : undefined;
    if (problem) notify(`refused-${crypto.randomUUID()}`, EXTENSION_TEXT.notSent, problem);
  });

let started: Promise<void> = Promise.resolve();
function start(): Promise<void> {
  started = started.then(async () => {
    await createMenu();
    const session = await currentSession();
    if (!session) return;
    await followLive(session, liveCallbacks).catch(() => undefined);
    await flushQueue(queueEvents);
  });
  return started;
}

chrome.contextMenus.onClicked.addListener((info) => void onMenuClicked(info));
// Headless Chromium shows no context menu to click: automated tests call what a click calls, by this name.
Object.assign(globalThis, { daysyncMenuClick: onMenuClicked });

chrome.notifications.onButtonClicked.addListener((id) => void onNotificationCopy(id));
// Automated tests call what a notification's Copy calls, by this name: headless Chromium shows no notification.
Object.assign(globalThis, { daysyncNotificationCopy: onNotificationCopy });

chrome.runtime.onInstalled.addListener(() => {
  void loadConnection().then((connection) => (connection ? undefined : chrome.runtime.openOptionsPage()));
});
chrome.runtime.onStartup.addListener(() => void start());
chrome.runtime.onMessage.addListener((message, _sender, respond) => {
  const read = backgroundMessageSchema.safeParse(message);
  if (!read.success) return undefined;
  if (read.data.type === "connected") void start();
  if (read.data.type === "seen") void clearUnread();
  if (read.data.type === "signed-out") void signedOut();
  if (read.data.type !== "send") return undefined;
  void sendText(read.data.content, false).then(respond);
  // The answer comes after this returns.
  return true;
});
self.addEventListener("online", () => void flushQueue(queueEvents));
void start();

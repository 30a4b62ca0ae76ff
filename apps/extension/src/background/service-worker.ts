/**
 * The extension's background: the context menu, the queue of what is sent, and the session. Listeners are added
 * at the top, as a Manifest V3 worker must; each start of the worker (browser start, install, a page saying it just
 * paired, the connection coming back) makes the menu and sends what waits.
 */
import "../../../web/src/lib/zod-jitless.ts";
import { loadConnection } from "../lib/connection.ts";
import { backgroundMessageSchema } from "../lib/messages.ts";
import { notify } from "../lib/notify.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import { createMenu, onMenuClick } from "./context-menu.ts";
import { currentSession, endSession } from "./extension-session.ts";
import { clearQueue, flushQueue, type QueueEvents, queueText } from "./send-queue.ts";

const queueEvents: QueueEvents = {
  refused: (_content, reason) => notify(`refused-${crypto.randomUUID()}`, EXTENSION_TEXT.notSent, reason),
  signedOut: () => endSession(clearQueue),
};

async function sendText(text: string): Promise<void> {
  const queued = await queueText(text, queueEvents);
  if (!queued.queued) notify(`refused-${crypto.randomUUID()}`, EXTENSION_TEXT.notSent, queued.reason);
}

const onMenuClicked = (info: chrome.contextMenus.OnClickData) => onMenuClick(info, sendText);

let started: Promise<void> = Promise.resolve();
function start(): Promise<void> {
  started = started.then(async () => {
    await createMenu();
    await currentSession();
    await flushQueue(queueEvents);
  });
  return started;
}

chrome.contextMenus.onClicked.addListener((info) => void onMenuClicked(info));
// Headless Chromium shows no context menu to click: automated tests call what a click calls, by this name.
Object.assign(globalThis, { daysyncMenuClick: onMenuClicked });

chrome.runtime.onInstalled.addListener(() => {
  void loadConnection().then((connection) => (connection ? undefined : chrome.runtime.openOptionsPage()));
});
chrome.runtime.onStartup.addListener(() => void start());
chrome.runtime.onMessage.addListener((message) => {
  const read = backgroundMessageSchema.safeParse(message);
  if (read.success && read.data.type === "connected") void start();
  return undefined;
});
self.addEventListener("online", () => void flushQueue(queueEvents));
void start();

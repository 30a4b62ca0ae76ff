/**
 * What this browser sends, kept in `chrome.storage.local` until the server stored it (the app's outbox, for the
 * extension): each text gets its id when chosen, so a retry never sends it twice; sealed on this device with the web
 * app's keys and sent through the send pipeline, sealed again once on a moved key. Offline, or while this browser
 * waits for its key, it stays queued and goes when the connection or the key is back.
 */
import { isKeyMovedAnswer, sendSealedText } from "@daysync/send";
import { API, formatStoredDate, formatStoredTime, responseSchemas, type SendMessageInput, sendMessageSchema } from "@daysync/shared";
import { z } from "zod";
import { ApiError, api } from "../../../web/src/lib/api-client.ts";
import { describeError, isTransientError } from "../../../web/src/lib/api-errors.ts";
import { currentSession, type Session } from "./extension-session.ts";

const KEY = "outbox";
const queueSchema = z.array(sendMessageSchema);

/** This browser cannot seal yet (no key, or still finding it): the message waits. */
class KeyNotReady extends Error {}

async function readQueue(): Promise<SendMessageInput[]> {
  const parsed = queueSchema.safeParse((await chrome.storage.local.get(KEY))[KEY]);
  return parsed.success ? parsed.data : [];
}

async function removeFromQueue(id: string): Promise<void> {
  await chrome.storage.local.set({ [KEY]: (await readQueue()).filter((entry) => entry.id !== id) });
}

export async function clearQueue(): Promise<void> {
  await chrome.storage.local.remove(KEY);
}

export interface QueueEvents {
  /** The server refused it for good (too long, not allowed): said to the person, and dropped. */
  refused(content: string, reason: string): void;
  /** The server no longer knows this session: it was signed out. */
  signedOut(): Promise<void>;
}

/**
 * Queues `content` as a new text of today (this browser's date and time) and sends what is queued. A text the
 * contract refuses (empty, too long) is not queued: the sentence says why.
 */
export async function queueText(content: string, events: QueueEvents): Promise<{ queued: true } | { queued: false; reason: string }> {
  const now = new Date();
  const message = sendMessageSchema.safeParse({
    id: crypto.randomUUID(),
    content,
    date: formatStoredDate(now),
    time: formatStoredTime(now),
  });
  if (!message.success) return { queued: false, reason: message.error.issues[0]?.message ?? "This text cannot be sent." };
  await chrome.storage.local.set({ [KEY]: [...(await readQueue()), message.data] });
  void flushQueue(events);
  return { queued: true };
}

let flushing: Promise<void> = Promise.resolve();
/** While the server cannot be reached, another try this long after (doubling up to a minute); the browser's online event and the live connection's return try sooner. */
const RETRY_FIRST_MS = 3000;
const RETRY_MAX_MS = 60_000;
let retryMs = RETRY_FIRST_MS;
let retry: ReturnType<typeof setTimeout> | undefined;

function retryLater(events: QueueEvents): void {
  if (retry) return;
  retry = setTimeout(() => {
    retry = undefined;
    void flushQueue(events);
  }, retryMs);
  retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
}

/** Sends what is queued, oldest first, one run at a time; stops at the first that must wait. */
export function flushQueue(events: QueueEvents): Promise<void> {
  flushing = flushing.then(() => sendQueued(events)).catch(() => undefined);
  return flushing;
}

async function sendQueued(events: QueueEvents): Promise<void> {
  const session = await currentSession();
  if (!session) return;
  for (const entry of await readQueue()) {
    try {
      await sendOne(session, entry);
      await removeFromQueue(entry.id);
      retryMs = RETRY_FIRST_MS;
    } catch (error) {
      // The key may arrive without any other event here (the pairing page stored it while the worker synced): try again.
      if (error instanceof KeyNotReady) return retryLater(events);
      if (isTransientError(error)) return retryLater(events);
      if (error instanceof ApiError && error.status === 401) return events.signedOut();
      await removeFromQueue(entry.id);
      events.refused(entry.content, describeError(error));
    }
  }
}

async function sendOne(session: Session, message: SendMessageInput): Promise<void> {
  const { keys } = session;
  await sendSealedText(message, {
    sealer: async () => {
      const sealing = await keys.sealer();
      if ("sealer" in sealing) return sealing.sealer;
      throw new KeyNotReady(sealing.waiting);
    },
    post: (body) => api.post(API.messages, body, responseSchemas.message),
    keyMoved: (error) => error instanceof ApiError && isKeyMovedAnswer(error.status, error.code),
    catchUp: () => keys.refresh(),
  });
  await keys.stored(message.id);
}

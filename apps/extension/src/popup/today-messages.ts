/**
 * Today's messages as the popup shows them: the day's sealed messages from the server, opened on this browser with
 * the epochs it holds (the app's DeviceKeys and openers), and never shown sealed.
 */
import { API, formatStoredDate, type Message, responseSchemas, SEALED_TEXT } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { api } from "../../../web/src/lib/api-client.ts";
import { isNetworkError } from "../../../web/src/lib/api-errors.ts";
import { type DeviceKeys, heldEpochsOf, keyedAtOf } from "../../../web/src/lib/sealing/device-keys.ts";
import { openSealedFile, type SealedFileMessage, sealedFileOf } from "../../../web/src/lib/sealing/sealed-files.ts";
import { keepTodayCopy, todayCopy } from "../lib/today-copy.ts";

interface Shown {
  id: string;
  time: string;
  /** The device that sent it, as Devices names it. */
  from: string;
}

export type ShownMessage =
  | (Shown & { kind: "text"; text: string })
  | (Shown & { kind: "file"; name: string; file: SealedFileMessage })
  /** What cannot be shown here, in words (not yet approved, could not be decrypted). */
  | (Shown & { kind: "notice"; text: string });

async function sealedToday(today: string): Promise<{ messages: Message[]; offline: boolean }> {
  try {
    const { days } = await api.get(API.days, responseSchemas.days);
    const day = days.find((d) => d.date === today);
    const messages = day ? (await api.get(API.dayMessages(day.id), responseSchemas.dayMessages)).messages : [];
    await keepTodayCopy(today, messages);
    return { messages, offline: false };
  } catch (error) {
    if (!isNetworkError(error)) throw error;
    return { messages: await todayCopy(today), offline: true };
  }
}

/** Today's messages (this browser's date), oldest first, opened; offline, those this browser had. */
export async function todayMessages(userId: string, keys: DeviceKeys): Promise<{ shown: ShownMessage[]; offline: boolean }> {
  const { messages, offline } = await sealedToday(formatStoredDate(new Date()));
  return { shown: await Promise.all(messages.map((message) => shownOf(userId, keys, message))), offline };
}

const noticeOf = (state: string) =>
  state === "locked" ? SEALED_TEXT.locked : state === "not_encrypted" ? SEALED_TEXT.notEncrypted : SEALED_TEXT.undecryptable;

async function shownOf(userId: string, keys: DeviceKeys, message: Message): Promise<ShownMessage> {
  const status = keys.getStatus();
  const epochs = heldEpochsOf(status) ?? new Map();
  const shown = { id: message.id, time: message.time, from: message.device?.name ?? "" };
  if (message.type !== "text") {
    // A file stored before encryption: named, opened in the app.
    if (message.epoch === undefined) return { ...shown, kind: "notice", text: message.filename };
    const file = sealedFileOf(message);
    if (!file) return { ...shown, kind: "notice", text: SEALED_TEXT.undecryptable };
    const opened = await openSealedFile({ userId, epochs }, file);
    return opened.state === "opened"
      ? { ...shown, kind: "file", name: opened.name, file }
      : { ...shown, kind: "notice", text: noticeOf(opened.state) };
  }
  const opened = await openMessage(userId, epochs, message, keyedAtOf(status));
  if (opened.state === "opened" || opened.state === "clear") return { ...shown, kind: "text", text: opened.text };
  return { ...shown, kind: "notice", text: noticeOf(opened.state) };
}

/**
 * A personal message sealed on the device that sends it and opened on the devices that show it (decision 020,
 * section 8): its text and preview (a file's name and preview) under the epoch's message key, each bound to its
 * place. What fails to open, or opens to text no device would have sent, is "undecryptable" and never shown.
 */
import type { SealedPushPreview } from "../devices.ts";
import type { DateMessages, Message } from "../entities.ts";
import { messageFormSchema } from "../schemas.ts";
import { SEALED_PREVIEW_LENGTH, type SendSealedMessageInput } from "../sealed-messages.ts";
import type { EpochKeys } from "./epoch-keys.ts";
import { UndecryptableError } from "./errors.ts";
import { openValue, type SealedPlace, sealValue } from "./sealed-value.ts";
import { numberedText, type SendNumber, type SendNumbering, splitNumbered } from "./send-numbers.ts";

/** The sending device, and the account's current epoch it seals under. */
export interface Sealer {
  userId: string;
  sessionId: string;
  epoch: number;
  keys: EpochKeys;
  /** This device's numbering of what it sends; without it messages go unnumbered, as before. */
  numbering?: SendNumbering;
}

/** The text a sealer seals: numbered when it numbers (the number sealed with the text, bound to its place). */
export async function numberedFor(sealer: Sealer, message: { id: string; date: string }, text: string): Promise<string> {
  return sealer.numbering ? numberedText(await sealer.numbering.take(message.id, message.date), text) : text;
}

/** The epochs a device holds, by number. */
export type HeldEpochs = ReadonlyMap<number, EpochKeys>;

/** What a device can show of a message or of a day's preview. */
export type Opened =
  /** Stored in clear (before encryption), or opened: `text` is the message's text (a file's name), `preview` its start. */
  | { state: "clear" | "opened"; text: string; preview: string; number?: SendNumber }
  /** Sealed under an epoch this device does not hold (it is not approved yet, or the key was reset since). */
  | { state: "locked"; epoch: number }
  /** It did not open, or opened to what no device sends: shown as "This message could not be decrypted". */
  | { state: "undecryptable" }
  /**
   * No epoch, yet dated after this device saw the account keyed: the server wrote it in clear, the person's devices
   * did not send it. Shown as "Not encrypted: not sent by your devices", never copied or passed on.
   */
  | { state: "not_encrypted" };

/**
 * Whether a message with no epoch is one the server wrote into a keyed account: dated at or after `keyedAt`, when
 * this device first saw the account with an epoch (undefined: not keyed yet, so clear is what devices send).
 */
export const writtenByServer = (keyedAt: number | undefined, message: { epoch?: number; timestamps?: number }) =>
  message.epoch === undefined && keyedAt !== undefined && message.timestamps !== undefined && message.timestamps >= keyedAt;

/** The preview of a text: its first 140 characters, never half of one. */
export function previewOf(text: string): string {
  // Without an array of the characters: sealing a message runs this, and its garbage is what the page's collector
  // paused the slowest seals for (bench/HISTORY.md).
  if (text.length <= SEALED_PREVIEW_LENGTH) return text;
  let characters = 0;
  let end = 0;
  for (const character of text) {
    if (characters === SEALED_PREVIEW_LENGTH) break;
    characters++;
    end += character.length;
  }
  return text.slice(0, end);
}

/**
 * Seals a text message for `POST /api/messages`, trimmed first as the server trims a text it gets in clear: every
 * device keeps the same text, and the server can no longer do it.
 */
export async function sealTextMessage(
  sealer: Sealer,
  typed: { id: string; date: string; time: string; content: string },
): Promise<SendSealedMessageInput> {
  const message = { ...typed, content: typed.content.trim() };
  const { userId, sessionId, epoch, keys } = sealer;
  const place = { userId, spaceId: userId, messageId: message.id, type: "text", date: message.date, time: message.time, epoch };
  const at = (field: "content" | "preview"): SealedPlace => ({ ...place, field, senderSessionId: sessionId });
  const [content, preview] = await Promise.all([
    sealValue(keys.message, at("content"), await numberedFor(sealer, message, message.content)),
    sealValue(keys.message, at("preview"), previewOf(message.content)),
  ]);
  return { id: message.id, date: message.date, time: message.time, epoch, content, preview };
}

/** What opening a message reads of it (a day's message, as the server or the offline copy has it). */
export type SealedMessageFields = Pick<Message, "id" | "type" | "content" | "filename" | "date" | "time" | "epoch" | "preview" | "device"> &
  Partial<Pick<Message, "timestamps">>;

/**
 * Opens a message of the user's personal space as the server sent it; `keyedAt` is when this device first saw the
 * account keyed (`keyedSince`), after which a message in clear is "not_encrypted".
 */
export async function openMessage(userId: string, epochs: HeldEpochs, message: SealedMessageFields, keyedAt?: number): Promise<Opened> {
  const isText = message.type === "text";
  if (writtenByServer(keyedAt, message)) return { state: "not_encrypted" };
  if (message.epoch === undefined) {
    const text = isText ? message.content : message.filename;
    return { state: "clear", text, preview: text };
  }
  const keys = epochs.get(message.epoch);
  if (!keys) return { state: "locked", epoch: message.epoch };
  const place = {
    userId,
    spaceId: userId,
    messageId: message.id,
    type: message.type,
    date: message.date,
    time: message.time,
    senderSessionId: message.device?.id ?? "",
    epoch: message.epoch,
  };
  return opened(async () => {
    const numbered = splitNumbered(
      await openValue(keys.message, { ...place, field: isText ? "content" : "filename" }, isText ? message.content : message.filename),
    );
    if (!numbered) throw new UndecryptableError("A message whose number does not parse");
    const { text, number } = numbered;
    const preview = await openValue(keys.message, { ...place, field: "preview" }, message.preview ?? "");
    const expected = isText ? previewOf(text) : text;
    if (preview !== expected || (isText && !messageFormSchema.shape.message.safeParse(text).success)) {
      throw new UndecryptableError("A message that opened to what no device sends");
    }
    return { text, preview, ...(number && { number }) };
  });
}

export type SealedDayFields = Pick<
  DateMessages,
  "date" | "last_message" | "last_message_type" | "last_message_time" | "last_message_epoch" | "last_message_id" | "last_message_device_id"
>;

/** Opens the preview of a day's newest message (the sidebar's line). */
export async function openDayPreview(userId: string, epochs: HeldEpochs, day: SealedDayFields): Promise<Opened> {
  if (day.last_message_epoch === undefined) return { state: "clear", text: day.last_message, preview: day.last_message };
  const keys = epochs.get(day.last_message_epoch);
  if (!keys) return { state: "locked", epoch: day.last_message_epoch };
  const place: SealedPlace = {
    field: "preview",
    userId,
    spaceId: userId,
    messageId: day.last_message_id ?? "",
    type: day.last_message_type,
    date: day.date,
    time: day.last_message_time,
    senderSessionId: day.last_message_device_id ?? "",
    epoch: day.last_message_epoch,
  };
  return opened(async () => {
    const preview = await openValue(keys.message, place, day.last_message);
    return { text: preview, preview };
  });
}

/** Opens the sealed preview a push notification carries (`NewMessagePush.sealed`), in the service worker. */
export async function openPushPreview(
  epochs: HeldEpochs,
  push: { message_id: string; message_type?: string; sealed: SealedPushPreview },
): Promise<Opened> {
  const { user_id, epoch, preview, date, time, device_id } = push.sealed;
  const keys = epochs.get(epoch);
  if (!keys) return { state: "locked", epoch };
  const place: SealedPlace = {
    field: "preview",
    userId: user_id,
    spaceId: user_id,
    messageId: push.message_id,
    type: push.message_type ?? "text",
    date,
    time,
    senderSessionId: device_id,
    epoch,
  };
  return opened(async () => {
    const text = await openValue(keys.message, place, preview);
    return { text, preview: text };
  });
}

async function opened(open: () => Promise<{ text: string; preview: string; number?: SendNumber }>): Promise<Opened> {
  try {
    return { state: "opened", ...(await open()) };
  } catch (error) {
    if (error instanceof UndecryptableError) return { state: "undecryptable" };
    throw error;
  }
}

/**
 * Messages and days as the command line shows them (docs/protocol/encryption.md, "Sealed messages"): a sealed text opened in place, so
 * no sealed value is ever printed, and what cannot be opened replaced by the sentence every device says instead.
 */
import type { DateMessages, Message } from "@daysync/shared";
import { SEALED_TEXT } from "@daysync/shared";
import { type Opened, plainLength } from "@daysync/shared/crypto";
import { CliError, EXIT } from "../errors.ts";
import type { MessageKeys } from "./message-keys.ts";

/**
 * A message with its text (a file's name) and preview opened, a sealed file's `file_size` in plain bytes and no
 * `file_key`; `error` says why text and preview are empty when they could not be opened.
 */
export type ShownMessage = Message & { error?: string };

/** A day with its `last_message` opened; `error` says why it is empty when it could not be. */
export type ShownDay = DateMessages & { error?: string };

const OPENED_ERRORS: Partial<Record<Opened["state"], string>> = {
  locked: SEALED_TEXT.locked,
  undecryptable: SEALED_TEXT.undecryptable,
  not_encrypted: SEALED_TEXT.notEncrypted,
};
const errorOf = (opened: Opened) => OPENED_ERRORS[opened.state];

export async function showMessage(keys: MessageKeys, message: Message): Promise<ShownMessage> {
  const opened = await keys.open(message);
  if (opened.state === "clear") return message;
  const text = opened.state === "opened" ? opened.text : "";
  // Its sealed file key is no more printed than its other sealed values. A sealed file's size is counted in plain
  // bytes, as it was sent; a length no file seals to is left out.
  const { file_size: sealedSize, file_key: _sealedKey, ...rest } = message;
  const fileSize = sealedSize === undefined ? undefined : plainFileSize(sealedSize);
  const shown: ShownMessage = {
    ...rest,
    ...(message.type === "text" ? { content: text } : { filename: text }),
    preview: opened.state === "opened" ? opened.preview : "",
    ...(fileSize === undefined ? {} : { file_size: fileSize }),
  };
  const error = errorOf(opened);
  return error ? { ...shown, error } : shown;
}

/**
 * The plain size of a sealed file of `sealedBytes` (its records' overhead taken off; no key needed), or undefined
 * when no file seals to that length.
 */
export function plainFileSize(sealedBytes: number): number | undefined {
  try {
    return plainLength(sealedBytes);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

export async function showDay(keys: MessageKeys, day: DateMessages): Promise<ShownDay> {
  const opened = await keys.openDay(day);
  if (opened.state === "clear") return day;
  const error = errorOf(opened);
  const shown: ShownDay = { ...day, last_message: opened.state === "opened" ? opened.text : "" };
  return error ? { ...shown, error } : shown;
}

/** The message's text for a person: what it says (a file's name), or why it cannot be read. */
export const textOf = (message: ShownMessage) => message.error ?? (message.type === "text" ? message.content : message.filename);

export const isUndecryptable = (shown: { error?: string }) => shown.error === SEALED_TEXT.undecryptable;

/** After everything was printed: exit with EXIT.undecryptable when any of it did not open. */
export function assertAllOpened(shown: Array<{ error?: string }>): void {
  const count = shown.filter(isUndecryptable).length;
  if (count === 0) return;
  throw new CliError(`${count === 1 ? "1 message" : `${count} messages`} could not be decrypted.`, EXIT.undecryptable);
}

/**
 * Messages and days as the command line shows them (decision 020, section 8): a sealed text opened in place, so
 * no sealed value is ever printed, and what cannot be opened replaced by the sentence every device says instead.
 */
import type { DateMessages, Message } from "@daysync/shared";
import { type Opened, SEALED_TEXT } from "@daysync/shared/crypto";
import { CliError, EXIT } from "./errors.ts";
import type { MessageKeys } from "./message-keys.ts";

/** A message with its text (a file's name) and preview opened; `error` says why they are empty when it could not be. */
export type ShownMessage = Message & { error?: string };

/** A day with its `last_message` opened; `error` says why it is empty when it could not be. */
export type ShownDay = DateMessages & { error?: string };

const errorOf = (opened: Opened) =>
  opened.state === "locked" ? SEALED_TEXT.locked : opened.state === "undecryptable" ? SEALED_TEXT.undecryptable : undefined;

export async function showMessage(keys: MessageKeys, message: Message): Promise<ShownMessage> {
  const opened = await keys.open(message);
  if (opened.state === "clear") return message;
  const text = opened.state === "opened" ? opened.text : "";
  const shown: ShownMessage = {
    ...message,
    ...(message.type === "text" ? { content: text } : { filename: text }),
    preview: opened.state === "opened" ? opened.preview : "",
  };
  const error = errorOf(opened);
  return error ? { ...shown, error } : shown;
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

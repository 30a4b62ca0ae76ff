/**
 * `daysync send`: a text message of today from the arguments or standard input, or files with --file, sealed on this
 * terminal under the account's current epoch (docs/protocol/encryption.md, "Sealed messages" and "File records").
 */
import { randomUUID } from "node:crypto";
import { formatStoredDate, formatStoredTime, MAX_MESSAGE_LENGTH, sendMessageSchema } from "@daysync/shared";
import { type ApiClient, ApiError } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { printJson } from "../format.ts";
import { MessageKeys } from "../message-keys.ts";
import { readStdin } from "../prompt.ts";
import { postSealedText } from "../sealed-send.ts";
import { showMessage } from "../shown-messages.ts";
import { say, warn } from "../terminal-text.ts";
import { uploadFile } from "../upload.ts";

export interface SendOptions {
  file?: string[];
  json?: boolean;
}

const SEND_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function send(ctx: Context, words: string[], options: SendOptions): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api, session } = signedIn;
  const files = options.file ?? [];
  let text = words.join(" ");
  if (!text && files.length === 0) {
    if (process.stdin.isTTY) {
      throw usageError(
        "Nothing to send: give the text (daysync send TEXT), pipe it in (echo hi | daysync send), or files with --file PATH.",
      );
    }
    text = await readStdin();
    if (!text.trim()) throw usageError("Nothing to send: standard input was empty.");
  }
  // Text and files are sealed here (docs/protocol/encryption.md, "Sealed messages" and "File records"), with the keys synced once for all of them.
  let keys: Promise<MessageKeys> | undefined;
  const loadKeys = () => {
    keys ??= MessageKeys.load(signedIn, ctx.store);
    return keys;
  };
  if (text) await sendText(loadKeys, api, text, options.json === true);
  for (const file of files) {
    const sent = await uploadFile(ctx.store, api, session.user.id, file, loadKeys);
    if (options.json) printJson({ message_id: sent.messageId, filename: sent.filename, size: sent.size });
    else say(`Sent ${sent.filename} (${sent.sizeLabel}) as message ${sent.messageId}.`);
  }
}

async function sendText(loadKeys: () => Promise<MessageKeys>, api: ApiClient, text: string, json: boolean): Promise<void> {
  const now = new Date();
  const input = sendMessageSchema.safeParse({ id: randomUUID(), content: text, date: formatStoredDate(now), time: formatStoredTime(now) });
  if (!input.success) {
    const tooLong = text.trim().length > MAX_MESSAGE_LENGTH;
    throw usageError(
      `${input.error.issues[0]?.message ?? "This text cannot be sent."}${tooLong ? " Send it as a file: daysync send --file PATH" : ""}`,
    );
  }
  const message = input.data;
  const keys = await loadKeys();
  // The id is made here once, so a retry after a lost answer never stores the message twice.
  for (let attempt = 1; ; attempt++) {
    try {
      const sent = await postSealedText(api, keys, message);
      if (json) printJson(await showMessage(keys, sent));
      else say(`Sent message ${sent.id} (${message.content.length} characters).`);
      return;
    } catch (error) {
      if (attempt >= SEND_ATTEMPTS) throw error;
      if (error instanceof ApiError && error.status === 429 && error.retryAfterSeconds) {
        warn(`${error.message} Waiting…`);
        await sleep(error.retryAfterSeconds * 1000);
      } else if (error instanceof CliError && error.exitCode === EXIT.unreachable) {
        await sleep(500 * attempt);
      } else {
        throw error;
      }
    }
  }
}

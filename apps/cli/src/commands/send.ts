/**
 * `daysync send`: a text message of today from the arguments or standard input, or files with --file, sealed on this
 * terminal under the account's current epoch (docs/protocol/encryption.md, "Sealed messages" and "File records").
 */
import { randomUUID } from "node:crypto";
import { formatStoredDate, formatStoredTime, MAX_MESSAGE_LENGTH, sendMessageSchema } from "@daysync/shared";
import { type ApiClient, ApiError } from "../api-client.ts";
import { copyToSend, uploadCopy } from "../clipboard-copy.ts";
import { clipboardTool } from "../clipboard-tools.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { printJson } from "../format.ts";
import { readStdin } from "../prompt.ts";
import { postSealedText } from "../sealed-send.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { showMessage } from "../sealing/shown-messages.ts";
import { say, warn } from "../terminal-text.ts";
import { type SentFile, uploadFile } from "../upload.ts";
import { sendToDiscussion } from "./discussion.ts";

export interface SendOptions {
  file?: string[];
  json?: boolean;
  /** Send what the clipboard holds now, once (a text, or an image as a file). */
  clipboard?: boolean;
  includeSecrets?: boolean;
  /** An encrypted discussion (its ID or link): the text is sealed under its room key instead. */
  discussion?: string;
}

const SEND_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function send(ctx: Context, words: string[], options: SendOptions): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api, session } = signedIn;
  const files = options.file ?? [];
  if (options.clipboard) {
    if (options.discussion !== undefined) throw usageError("--clipboard sends to your own days: give the text to send to a discussion.");
    if (words.length || files.length) throw usageError("--clipboard sends what the clipboard holds: give no text and no --file with it.");
    return sendClipboard(ctx, options);
  }
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
  if (options.discussion !== undefined) {
    if (files.length) throw usageError("--discussion sends a text: files cannot be sent to a discussion from the command line yet.");
    return sendToDiscussion(ctx, options.discussion, text, options.json === true);
  }
  // Text and files are sealed here (docs/protocol/encryption.md, "Sealed messages" and "File records"), with the keys synced once for all of them.
  let keys: Promise<MessageKeys> | undefined;
  const loadKeys = () => {
    keys ??= MessageKeys.load(signedIn, ctx.store);
    return keys;
  };
  if (text) await sendText(loadKeys, api, text, options.json === true);
  for (const file of files) {
    sayFileSent(await uploadFile(ctx.store, api, session.user.id, file, loadKeys), options.json === true);
  }
}

/**
 * The clipboard's copy, sent once as `daysync clip` would send it; a copy marked concealed only with --include-secrets.
 * `clip --hotkey` runs it at each press of its shortcut.
 */
export async function sendClipboard(ctx: Context, options: SendOptions): Promise<void> {
  const signedIn = await ctx.signedIn();
  const snapshot = await clipboardTool().read({ images: true });
  if (snapshot.concealed && !options.includeSecrets)
    throw usageError("Not sent: a password manager marked what the clipboard holds as concealed (--include-secrets sends it).");
  const copy = copyToSend(snapshot, new Date());
  if (!copy) throw usageError("Nothing to send: the clipboard holds no text and no image.");
  const loadKeys = () => MessageKeys.load(signedIn, ctx.store);
  if ("text" in copy) return sendText(loadKeys, signedIn.api, copy.text, options.json === true);
  sayFileSent(await uploadCopy(ctx.store, signedIn.api, signedIn.session.user.id, copy, loadKeys), options.json === true);
}

function sayFileSent(sent: SentFile, json: boolean) {
  if (json) printJson({ message_id: sent.messageId, filename: sent.filename, size: sent.size });
  else say(`Sent ${sent.filename} (${sent.sizeLabel}) as message ${sent.messageId}.`);
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

/**
 * `daysync watch`: prints each new message as it arrives. Where it stopped (the last sequence number handled)
 * is saved in the config directory after each message, so after a dropped connection, a server restart or a
 * new run it resumes there: nothing missed, nothing twice. Sealed messages are opened with this terminal's keys;
 * one that does not open is printed as "This message could not be decrypted", and watching goes on.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { Message } from "@daysync/shared";
import type { ApiClient } from "../api-client.ts";
import { type Clipboard, openClipboard } from "../clipboard.ts";
import type { WatchPosition } from "../config-store.ts";
import type { Context } from "../context.ts";
import { usageError } from "../errors.ts";
import { followMessages } from "../followed-messages.ts";
import { printJson } from "../format.ts";
import { downloadError, type FileKey, fetchFileBytes, fileKeyOf } from "../sealing/file-bytes.ts";
import { LiveMessages } from "../sealing/live-messages.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import type { ShownMessage } from "../sealing/shown-messages.ts";
import { say, warn } from "../terminal-text.ts";
import { watchDiscussion } from "./discussion.ts";

export interface WatchOptions {
  copy?: boolean;
  json?: boolean;
  exec?: string;
  /** An encrypted discussion (its ID or link) to watch instead of the account's days. */
  discussion?: string;
}

/**
 * A message as `watch --json` prints it: the API's message with its text opened (or `error`) and the sequence number
 * it came with (null after a catch-up).
 */
export type WatchedMessage = ShownMessage & { seq: number | null };

export async function watch(ctx: Context, options: WatchOptions): Promise<void> {
  if (options.discussion !== undefined) {
    if (options.copy || options.exec)
      throw usageError("--discussion prints a discussion's messages: --copy and --exec are for your own days.");
    return watchDiscussion(ctx, options.discussion, options);
  }
  const signedIn = await ctx.signedIn();
  const { api, session, server } = signedIn;
  const clipboard = options.copy ? openClipboard() : undefined;
  const keys = await MessageKeys.load(signedIn, ctx.store);
  const notice = keys.notice();
  if (notice) warn(notice);
  const arriving = new LiveMessages(keys, (text) => warn(text));
  const key = `${server} ${session.user.id}`;
  let announced = false;
  let saveFailed = false;
  // A full disk or no file descriptor left must not end watch: the position stays in memory and the next save retries.
  const save = (next: WatchPosition) => {
    try {
      ctx.store.saveWatchPosition(key, next);
      saveFailed = false;
    } catch (error) {
      if (!saveFailed)
        warn(
          `Could not save the watch position (${error instanceof Error ? error.message : String(error)}); watch goes on and tries again.`,
        );
      saveFailed = true;
    }
  };

  const handle = async (message: Message, seq: number | null) => {
    const shown = await arriving.open(message);
    show(shown, seq, options.json === true);
    // What did not open is printed as such, and goes nowhere else.
    if (shown.error) return;
    if (clipboard && shown.type === "text") await copy(clipboard, shown.content);
    if (options.exec) await execFor(api, keys, options.exec, message, shown);
  };

  const live = followMessages(
    api,
    server,
    arriving,
    { read: () => ctx.store.watchPosition(key), save },
    {
      message: handle,
      ready() {
        if (!announced) warn(`Watching for new messages on ${server}. Press Ctrl+C to stop.`);
        announced = true;
      },
      notice: (text) => warn(text),
    },
  );
  await live.untilInterrupted();
}

function show(message: ShownMessage, seq: number | null, json: boolean) {
  if (json) {
    const watched: WatchedMessage = { ...message, seq };
    return printJson(watched);
  }
  if (message.error) say(`[${message.time}] ${message.error}`);
  else if (message.type === "text") say(`[${message.time}] ${message.content}`);
  else say(`[${message.time}] ${message.filename} (${message.type}; download it with: daysync get ${message.id})`);
}

async function copy(clipboard: Clipboard, text: string) {
  try {
    await clipboard.copy(text);
  } catch (error) {
    warn((error as Error).message);
  }
}

/**
 * Runs the --exec command for one message, the text (or the file's bytes, opened as they come when it is sealed) on
 * its standard input; one at a time. A sealed file whose record does not open stops the command, so it never takes
 * a file cut short for the whole.
 */
async function execFor(api: ApiClient, keys: MessageKeys, command: string, message: Message, shown: ShownMessage): Promise<void> {
  let fileKey: FileKey | undefined;
  try {
    if (message.type !== "text") fileKey = await fileKeyOf(keys, message);
  } catch (error) {
    warn(`--exec: not run for message ${message.id}: ${(error as Error).message}`);
    return;
  }
  let child: ChildProcessByStdio<Writable, null, null>;
  try {
    child = spawn(command, {
      shell: true,
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...process.env, ...execEnvironment(shown) },
    });
  } catch (error) {
    // A spawn that throws (rather than failing as the child's "error") is this message's failure, never watch's.
    warn(`--exec: "${command}" could not run for message ${message.id}: ${(error as Error).message}`);
    return;
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  // Out of file descriptors (EMFILE) the child never starts and has no input to write to.
  if (!child.stdin) {
    await exited;
    warn(`--exec: "${command}" could not run for message ${message.id}.`);
    return;
  }
  // A command that does not read its input closes the pipe early: that is its choice, not an error.
  child.stdin.on("error", () => {});
  let stopped = false;
  try {
    if (shown.type === "text") child.stdin.end(shown.content);
    else {
      const { body } = await fetchFileBytes(api, message, fileKey);
      body.on("error", (error) => {
        stopped = true;
        warn(`--exec: stopped for message ${message.id}: ${downloadError(error, shown.filename).message}`);
        child.kill("SIGTERM");
        child.stdin.destroy();
      });
      body.pipe(child.stdin);
    }
  } catch (error) {
    child.stdin.end();
    warn((error as Error).message);
  }
  const code = await exited;
  if (code !== 0 && !stopped)
    warn(`--exec: "${command}" ${code === null ? "could not run" : `exited with ${code}`} for message ${message.id}.`);
}

/**
 * What --exec gets to know of a message, as environment variables. The values come from another device (a sealed
 * file's name is whatever it sealed): a NUL would make spawn throw, and any control character could reach a
 * terminal or a script, so each becomes "_", as in the names `get` saves files under.
 */
export function execEnvironment(shown: ShownMessage): Record<string, string> {
  const clean = (value: string) => value.replace(/\p{Cc}/gu, "_");
  return {
    DAYSYNC_MESSAGE_ID: clean(shown.id),
    DAYSYNC_MESSAGE_TYPE: clean(shown.type),
    DAYSYNC_MESSAGE_FILENAME: clean(shown.filename),
    DAYSYNC_MESSAGE_DATE: clean(shown.date),
    DAYSYNC_MESSAGE_TIME: clean(shown.time),
  };
}

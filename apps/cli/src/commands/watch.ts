/**
 * `daysync watch`: prints each new message as it arrives. Where it stopped (the last sequence number handled)
 * is saved in the config directory after each message, so after a dropped connection, a server restart or a
 * new run it resumes there: nothing missed, nothing twice. Sealed messages are opened with this terminal's keys;
 * one that does not open is printed as "This message could not be decrypted", and watching goes on.
 */
import { spawn } from "node:child_process";
import { API, type Message, responseSchemas } from "@daysync/shared";
import type { CryptoKey } from "@daysync/shared/crypto";
import type { ApiClient } from "../api-client.ts";
import { type Clipboard, openClipboard } from "../clipboard.ts";
import type { WatchPosition } from "../config-store.ts";
import type { Context } from "../context.ts";
import { downloadError, fetchFileBytes, fileKeyOf } from "../file-bytes.ts";
import { printJson } from "../format.ts";
import { runLive } from "../live-connection.ts";
import { LiveMessages } from "../live-messages.ts";
import { MessageKeys } from "../message-keys.ts";
import type { ShownMessage } from "../shown-messages.ts";

export interface WatchOptions {
  copy?: boolean;
  json?: boolean;
  exec?: string;
}

/**
 * A message as `watch --json` prints it: the API's message with its text opened (or `error`) and the sequence number
 * it came with (null after a catch-up).
 */
export type WatchedMessage = ShownMessage & { seq: number | null };

export async function watch(ctx: Context, options: WatchOptions): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api, session, server } = signedIn;
  const clipboard = options.copy ? openClipboard() : undefined;
  const keys = await MessageKeys.load(signedIn, ctx.store);
  const notice = keys.notice();
  if (notice) process.stderr.write(`${notice}\n`);
  const arriving = new LiveMessages(keys, (text) => process.stderr.write(`${text}\n`));
  const key = `${server} ${session.user.id}`;
  const saved = ctx.store.watchPosition(key);
  // Without a saved position the first run starts from now: it skips the replay up to its `ready`.
  let position: WatchPosition | undefined = saved;
  let announced = false;
  const save = (next: WatchPosition) => {
    position = next;
    ctx.store.saveWatchPosition(key, next);
  };

  const handle = async (message: Message, seq: number | null) => {
    const shown = await arriving.open(message);
    show(shown, seq, options.json === true);
    // What did not open is printed as such, and goes nowhere else.
    if (shown.error) return;
    if (clipboard && shown.type === "text") await copy(clipboard, shown.content);
    if (options.exec) await execFor(api, keys, options.exec, message, shown);
  };

  const live = runLive(server, api.token ?? "", {
    position: {
      get: () => position?.seq ?? 0,
      // Without a position yet (a first run before its `ready`), what is replayed is skipped and nothing is saved.
      set: (seq) => {
        if (position) save({ seq, last_message_at: position.last_message_at });
      },
    },
    async onEvent(event, { seq }) {
      if (!position) return;
      if (event.kind !== "message.created") return arriving.onEvent(event);
      await handle(event.message, seq);
      // Saved with the sequence number once this event is done.
      position = { ...position, last_message_at: event.message.timestamps };
    },
    async onReady({ seq }) {
      position ??= { seq, last_message_at: Date.now() };
      if (!announced) process.stderr.write(`Watching for new messages on ${server}. Press Ctrl+C to stop.\n`);
      announced = true;
    },
    async onReset(seq) {
      // The log no longer reaches back to our position: fetch what arrived since the last message handled.
      if (position) {
        for (const message of await messagesSince(api, position.last_message_at)) {
          await handle(message, null);
          save({ seq: position.seq, last_message_at: message.timestamps });
        }
      }
      position ??= { seq, last_message_at: Date.now() };
    },
    onNotice: (text) => process.stderr.write(`${text}\n`),
  });
  const stop = () => live.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await live.done;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function show(message: ShownMessage, seq: number | null, json: boolean) {
  if (json) {
    const watched: WatchedMessage = { ...message, seq };
    return printJson(watched);
  }
  if (message.error) console.log(`[${message.time}] ${message.error}`);
  else if (message.type === "text") console.log(`[${message.time}] ${message.content}`);
  else console.log(`[${message.time}] ${message.filename} (${message.type}; download it with: daysync get ${message.id})`);
}

async function copy(clipboard: Clipboard, text: string) {
  try {
    await clipboard.copy(text);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
  }
}

/**
 * Runs the --exec command for one message, the text (or the file's bytes, opened as they come when it is sealed) on
 * its standard input; one at a time. A sealed file whose record does not open stops the command, so it never takes
 * a file cut short for the whole.
 */
async function execFor(api: ApiClient, keys: MessageKeys, command: string, message: Message, shown: ShownMessage): Promise<void> {
  let fileKey: CryptoKey | undefined;
  try {
    if (message.type !== "text") fileKey = await fileKeyOf(keys, message);
  } catch (error) {
    process.stderr.write(`--exec: not run for message ${message.id}: ${(error as Error).message}\n`);
    return;
  }
  const child = spawn(command, {
    shell: true,
    stdio: ["pipe", "inherit", "inherit"],
    env: {
      ...process.env,
      DAYSYNC_MESSAGE_ID: shown.id,
      DAYSYNC_MESSAGE_TYPE: shown.type,
      DAYSYNC_MESSAGE_FILENAME: shown.filename,
      DAYSYNC_MESSAGE_DATE: shown.date,
      DAYSYNC_MESSAGE_TIME: shown.time,
    },
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  // A command that does not read its input closes the pipe early: that is its choice, not an error.
  child.stdin.on("error", () => {});
  let stopped = false;
  try {
    if (shown.type === "text") child.stdin.end(shown.content);
    else {
      const { body } = await fetchFileBytes(api, message, fileKey);
      body.on("error", (error) => {
        stopped = true;
        process.stderr.write(`--exec: stopped for message ${message.id}: ${downloadError(error, shown.filename).message}\n`);
        child.kill("SIGTERM");
        child.stdin.destroy();
      });
      body.pipe(child.stdin);
    }
  } catch (error) {
    child.stdin.end();
    process.stderr.write(`${(error as Error).message}\n`);
  }
  const code = await exited;
  if (code !== 0 && !stopped)
    process.stderr.write(`--exec: "${command}" ${code === null ? "could not run" : `exited with ${code}`} for message ${message.id}.\n`);
}

/** Live messages created after `since` (ms), oldest first, from the HTTP routes. */
export async function messagesSince(api: ApiClient, since: number): Promise<Message[]> {
  const { days } = await api.get(API.days, responseSchemas.days);
  const found: Message[] = [];
  for (const day of days) {
    const { messages } = await api.get(API.dayMessages(day.id), responseSchemas.dayMessages);
    const newer = messages.filter((m) => m.timestamps > since);
    found.push(...newer);
    if (newer.length < messages.length) break;
  }
  return found.sort((a, b) => a.timestamps - b.timestamps);
}

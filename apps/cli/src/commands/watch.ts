/**
 * `daysync watch`: prints each new message as it arrives. Where it stopped (the last sequence number handled)
 * is saved in the config directory after each message, so after a dropped connection, a server restart or a
 * new run it resumes there: nothing missed, nothing twice. Sealed messages are opened with this terminal's keys;
 * one that does not open is printed as "This message could not be decrypted", and watching goes on.
 */
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { API, type Message, responseSchemas } from "@daysync/shared";
import type { ApiClient } from "../api-client.ts";
import { type Clipboard, openClipboard } from "../clipboard.ts";
import type { WatchPosition } from "../config-store.ts";
import type { Context } from "../context.ts";
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
    if (options.exec) await execFor(api, options.exec, shown);
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

/** Runs the --exec command for one message, the text (or the file's bytes) on its standard input; one at a time. */
async function execFor(api: ApiClient, command: string, message: Message): Promise<void> {
  const child = spawn(command, {
    shell: true,
    stdio: ["pipe", "inherit", "inherit"],
    env: {
      ...process.env,
      DAYSYNC_MESSAGE_ID: message.id,
      DAYSYNC_MESSAGE_TYPE: message.type,
      DAYSYNC_MESSAGE_FILENAME: message.filename,
      DAYSYNC_MESSAGE_DATE: message.date,
      DAYSYNC_MESSAGE_TIME: message.time,
    },
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  // A command that does not read its input closes the pipe early: that is its choice, not an error.
  child.stdin.on("error", () => {});
  try {
    if (message.type === "text") child.stdin.end(message.content);
    else {
      const res = await api.fetch("GET", message.file_url, { timeoutMs: 0 });
      if (res.body) Readable.fromWeb(res.body as WebReadableStream<Uint8Array>).pipe(child.stdin);
      else child.stdin.end();
    }
  } catch (error) {
    child.stdin.end();
    process.stderr.write(`${(error as Error).message}\n`);
  }
  const code = await exited;
  if (code !== 0)
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

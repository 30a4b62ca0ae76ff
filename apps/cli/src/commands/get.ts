/**
 * `daysync get ID|last`: a text to standard output, a file downloaded under its own name (never overwriting without
 * --force). A sealed file is opened while it streams and saved under its opened name only once its final record opened.
 */
import { once } from "node:events";
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { API, type Message, messageIdParamsSchema, responseSchemas } from "@daysync/shared";
import { type ApiClient, ApiError } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, messageGone, usageError } from "../errors.ts";
import { formatBytes } from "../format.ts";
import { progressBar } from "../progress.ts";
import { saveTo } from "../save-to.ts";
import { downloadError, type FileKey, fetchFileBytes, fileKeyOf } from "../sealing/file-bytes.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { isUndecryptable, type ShownMessage, showMessage } from "../sealing/shown-messages.ts";
import { say } from "../terminal-text.ts";

export interface GetOptions {
  output?: string;
  force?: boolean;
}

export async function get(ctx: Context, target: string, options: GetOptions): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api } = signedIn;
  const message = target === "last" ? await lastMessage(api) : await messageById(api, target);
  const loadKeys = () => MessageKeys.load(signedIn, ctx.store);
  if (message.type === "text") return writeText(await openedText(loadKeys, message), options);
  if (message.epoch === undefined) return download(api, message, message.filename, undefined, options);
  // A sealed file: its name opened as `ls` shows it, and the key of its records.
  const keys = await loadKeys();
  const shown = await openedOrThrow(keys, message);
  await download(api, message, shown.filename, await fileKeyOf(keys, message), options);
}

async function messageById(api: ApiClient, id: string): Promise<Message> {
  if (!messageIdParamsSchema.safeParse({ id }).success) {
    throw usageError(`"${id}" is not a message id. Give an id from daysync ls, or last for the newest message.`);
  }
  try {
    return (await api.get(API.message(id), responseSchemas.message)).message;
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? messageGone(id) : error;
  }
}

/** The newest live message: the last of the newest day that still has one. */
async function lastMessage(api: ApiClient): Promise<Message> {
  const { days } = await api.get(API.days, responseSchemas.days);
  for (const day of days) {
    const { messages } = await api.get(API.dayMessages(day.id), responseSchemas.dayMessages);
    const last = messages.at(-1);
    if (last) return last;
  }
  throw new CliError("There are no messages yet (or they have all expired).", EXIT.notFound);
}

/** A sealed text opened with this terminal's keys; one that does not open is an error, never written out. */
async function openedText(loadKeys: () => Promise<MessageKeys>, message: Message): Promise<string> {
  if (message.epoch === undefined) return message.content;
  return (await openedOrThrow(await loadKeys(), message)).content;
}

/** A sealed message's text (a file's name) opened, or why it cannot be (exit codes EXIT.undecryptable, EXIT.locked). */
async function openedOrThrow(keys: MessageKeys, message: Message): Promise<ShownMessage> {
  const shown = await showMessage(keys, message);
  if (shown.error) throw new CliError(shown.error, isUndecryptable(shown) ? EXIT.undecryptable : EXIT.locked);
  return shown;
}

function refuseOverwrite(target: string): CliError {
  return new CliError(`${target} already exists. Add --force to overwrite it, or choose another name with --output PATH.`);
}

function writeText(content: string, options: GetOptions) {
  if (!options.output || options.output === "-") {
    // To a terminal, the text's control characters are shown, not obeyed; to a pipe or a file, the exact text.
    if (process.stdout.isTTY) say(content.endsWith("\n") ? content.slice(0, -1) : content);
    else process.stdout.write(content);
    return;
  }
  try {
    writeFileSync(options.output, content, { flag: options.force ? "w" : "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw refuseOverwrite(options.output);
    throw new CliError(`Cannot write ${options.output}: ${(error as Error).message}`);
  }
}

/** What a download is written to until it is complete, beside its final name. */
const PART_SUFFIX = ".daysync-part";
/** File systems take names of at most 255 bytes (of UTF-8 on Linux); the part file's name must fit too. */
const MAX_NAME_BYTES = 255 - PART_SUFFIX.length;

/** A file name from the server made safe to create here: no folders, no characters file systems refuse, not too long. */
export function safeFileName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed.
  const cleaned = path.basename(name.replace(/\\/g, "/")).replace(/[\u0000-\u001f\u007f-\u009f<>:"/\\|?*]/g, "_");
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "download" : fitFileName(cleaned);
}

/** The name shortened to `maxBytes` of UTF-8, cut between characters, its extension kept (when it is a short one). */
export function fitFileName(name: string, maxBytes = MAX_NAME_BYTES): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const extension = path.extname(name);
  const kept = Buffer.byteLength(extension) <= maxBytes / 4 ? extension : "";
  let room = maxBytes - Buffer.byteLength(kept);
  let stem = "";
  // for…of walks code points, so a cut never falls inside a character's UTF-8 sequence.
  for (const char of name.slice(0, name.length - kept.length)) {
    room -= Buffer.byteLength(char);
    if (room < 0) break;
    stem += char;
  }
  return stem + kept;
}

function targetPath(output: string | undefined, filename: string): string {
  if (!output) return safeFileName(filename);
  if (existsSync(output) && statSync(output).isDirectory()) return path.join(output, safeFileName(filename));
  return output;
}

/**
 * Downloads a file message to `<name>.daysync-part`, renamed to its name once all of it came (for a sealed file, once
 * its final record opened); on any failure the part is deleted. `fileKey` opens a sealed file's records as they come.
 */
async function download(
  api: ApiClient,
  message: Message,
  filename: string,
  fileKey: FileKey | undefined,
  options: GetOptions,
): Promise<void> {
  const toStdout = options.output === "-";
  const target = toStdout ? "-" : targetPath(options.output, filename);
  if (!toStdout && !options.force && existsSync(target)) throw refuseOverwrite(target);
  const { body, size } = await fetchFileBytes(api, message, fileKey);
  const bar = progressBar(filename, size);
  let done = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      bar.update(done);
      callback(null, chunk);
    },
  });
  const partial = `${target}${PART_SUFFIX}`;
  try {
    if (toStdout) await pipeline(body, counter, process.stdout, { end: false });
    else {
      // Opened before any byte goes, so a failure's clean-up never runs ahead of the part's creation.
      const part = saveTo(partial);
      await once(part, "open");
      await pipeline(body, counter, part);
    }
  } catch (error) {
    body.destroy();
    if (!toStdout) rmSync(partial, { force: true });
    throw downloadError(error, filename);
  } finally {
    bar.stop();
  }
  if (toStdout) return;
  if (!options.force && existsSync(target)) {
    rmSync(partial, { force: true });
    throw refuseOverwrite(target);
  }
  renameSync(partial, target);
  say(`Saved ${target} (${formatBytes(done)}).`);
}

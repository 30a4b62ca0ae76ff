/**
 * Web Share Target: text and links shared to Daysync become one text message in today's day; each shared
 * file becomes a file message. Then the app opens on today. Both are sealed here, with the keys the page keeps in
 * IndexedDB (decision 020), through the send pipeline (@daysync/send): the text before its POST, each file record by
 * record as tus sends it. What cannot be sent
 * yet (signed out, offline, or this device not approved to hold the key) is kept in this browser, in clear, and sent
 * later (deliverPendingShares).
 */

import { isKeyMovedAnswer, isUnreachable, type Sealer, sealText, serverErrorOf, statusOf, uploadSealedOnce } from "@daysync/send";
import {
  API,
  composeSharedText,
  fileMessageType,
  formatStoredDate,
  formatStoredTime,
  KEYS_API,
  keysStateSchema,
  responseSchemas,
  SHARE_FIELDS,
  SHARED_TEXT_LIMIT,
  type ShareOutcome,
} from "@daysync/shared";
import { DetailedError } from "tus-js-client";
import { browserKeyStorage } from "../lib/sealing/key-store.ts";

declare const self: ServiceWorkerGlobalScope & {
  registration: { sync?: { register(tag: string): Promise<void> } };
};

type Outcome = "saved" | "failed" | "signin" | "offline" | "locked";

/** A shared file and the id of its message, kept across retries like the text's. */
interface SharedFile {
  file: File;
  id: string;
}

/** What one share holds: one text (already composed, with the message id it keeps across retries) and any files. */
interface Shared {
  text: string;
  textId: string;
  files: SharedFile[];
}

/** Shares waiting for a sign-in or the network, each stored whole as a multipart form. */
const PENDING_CACHE = "daysync-pending-shares";
/** Background Sync tag: where supported, the browser wakes the worker to send them once online. */
export const PENDING_SYNC_TAG = "daysync-pending-shares";
/** Field of a kept form that carries the text message's id. */
const TEXT_ID_FIELD = "text_id";
/** Field of a kept form that carries each file's message id, in the files' order. */
const FILE_ID_FIELD = "file_id";
/** The server's 409 code for a message id already in use. */
const ID_IN_USE = "conflict";

/** A text field of a form; multipart encoding turns line breaks into CRLF, and messages keep LF. */
const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value.replaceAll("\r\n", "\n") : null;
};

/** This device's keys for the account's current epoch, as the page keeps them, or why it cannot seal now. */
async function currentSealer(): Promise<{ sealer: Sealer } | { outcome: Exclude<Outcome, "saved"> }> {
  const [me, keys] = await Promise.all([
    fetch(API.me, { credentials: "same-origin" }),
    fetch(KEYS_API.keys, { credentials: "same-origin" }),
  ]);
  if (me.status === 401 || keys.status === 401) return { outcome: "signin" };
  const user = responseSchemas.user.safeParse(await me.json().catch(() => null));
  const state = keysStateSchema.safeParse(await keys.json().catch(() => null));
  if (!user.success || !state.success) return { outcome: "failed" };
  const userId = user.data.user.id;
  const { epoch, key_id, session_id } = state.data;
  const held = await browserKeyStorage(userId)
    .load()
    .catch(() => undefined);
  const epochKeys = epoch !== null && held?.keyId === key_id ? held.epochs.get(epoch) : undefined;
  if (epoch === null || !epochKeys) return { outcome: "locked" };
  return { sealer: { userId, sessionId: session_id, epoch, keys: epochKeys } };
}

/** A request that could not reach the server: the share waits for the network. */
class Unreachable extends Error {}

function request(input: string | URL, init: RequestInit): Promise<Response> {
  return fetch(input, { ...init, credentials: "same-origin" }).catch(() => {
    throw new Unreachable();
  });
}

/**
 * How a refused request ends. A 409 of the epoch (`key_epoch_changed`, `key_rotation_due`) means the account's key
 * moved on since the page last synced: kept, and sealed again under the next epoch once the page has caught up.
 */
function refusal(status: number, code: string | undefined): Outcome {
  if (status === 401) return "signin";
  return isKeyMovedAnswer(status, code) ? "locked" : "failed";
}

async function refused(res: Response): Promise<Outcome> {
  const body = responseSchemas.error.safeParse(await res.json().catch(() => null));
  return refusal(res.status, body.success ? body.data.error.code : undefined);
}

/** Runs one send; what could not reach the server waits for the network, anything else went wrong. */
async function attempt(send: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await send();
  } catch (error) {
    return error instanceof Unreachable ? "offline" : "failed";
  }
}

function saveText(sealer: Sealer, shared: Shared, stamp: { date: string; time: string }): Promise<Outcome> {
  return attempt(async () => {
    const message = { id: shared.textId, content: shared.text.slice(0, SHARED_TEXT_LIMIT), ...stamp };
    const res = await request(API.messages, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(await sealText(sealer, message)),
    });
    return res.ok ? "saved" : refused(res);
  });
}

/**
 * Uploads one file sealed, over tus without retries (a share that cannot go now is kept and tried again later).
 * Each try seals under a fresh file key; one cut off leaves an unfinished upload the server sweeps.
 */
function uploadFile(sealer: Sealer, { file, id }: SharedFile, stamp: { date: string; time: string }): Promise<Outcome> {
  return attempt(async () => {
    const fresh = { id, ...stamp, name: file.name || "shared file", type: fileMessageType(file.type) };
    try {
      await uploadSealedOnce(sealer, file, fresh, { url: new URL(API.uploads, self.location.origin).href });
      return "saved";
    } catch (error) {
      if (isUnreachable(error)) throw new Unreachable();
      const code = serverErrorOf(error)?.code;
      // The id is this share's own, chosen here: a message holding it is this file, sent by a try whose answer was lost.
      const created = error instanceof DetailedError && error.originalRequest?.getMethod() === "POST";
      if (created && statusOf(error) === 409 && code === ID_IN_USE) return "saved";
      return refusal(statusOf(error), code);
    }
  });
}

const worst = (outcomes: ShareOutcome[]): ShareOutcome =>
  (["failed", "locked", "queued"] as const).find((outcome) => outcomes.includes(outcome)) ?? "saved";

interface SaveResult {
  /** How each item that was tried went. */
  outcomes: ShareOutcome[];
  /** What was not sent, and what it waits for; the caller keeps it. */
  rest?: { shared: Shared; waitsFor: WaitsFor };
}

/** What a kept share waits for: a sign-in, the network, or this device's approval to hold the key. */
type WaitsFor = "signin" | "online" | "approval";
const WAITS_FOR: Record<"signin" | "offline" | "locked", WaitsFor> = { signin: "signin", offline: "online", locked: "approval" };
const isWait = (outcome: Outcome): outcome is keyof typeof WAITS_FOR => outcome in WAITS_FOR;
/** How a share that waits is reported: "queued" for the network, "locked" for an approval. */
const reported = (waits: WaitsFor): ShareOutcome => (waits === "approval" ? "locked" : "queued");

/** Saves a share in today's day, in order, until it needs a sign-in, the network or this device's approval. */
async function save(shared: Shared): Promise<SaveResult> {
  if (!shared.text && shared.files.length === 0) return { outcomes: [] };
  const now = new Date();
  const stamp = { date: formatStoredDate(now), time: formatStoredTime(now) };
  const sealing = await currentSealer().catch(() => ({ outcome: "offline" as const }));
  if ("outcome" in sealing) {
    if (isWait(sealing.outcome)) return { outcomes: [], rest: { shared, waitsFor: WAITS_FOR[sealing.outcome] } };
    return { outcomes: [sealing.outcome] };
  }
  const outcomes: ShareOutcome[] = [];
  if (shared.text) {
    const outcome = await saveText(sealing.sealer, shared, stamp);
    if (isWait(outcome)) return { outcomes, rest: { shared, waitsFor: WAITS_FOR[outcome] } };
    outcomes.push(outcome);
  }
  for (const [index, file] of shared.files.entries()) {
    const outcome = await uploadFile(sealing.sealer, file, stamp);
    if (isWait(outcome)) {
      return { outcomes, rest: { shared: { ...shared, text: "", files: shared.files.slice(index) }, waitsFor: WAITS_FOR[outcome] } };
    }
    outcomes.push(outcome);
  }
  return { outcomes };
}

function toForm(shared: Shared): FormData {
  const form = new FormData();
  if (shared.text) form.set(SHARE_FIELDS.text, shared.text);
  form.set(TEXT_ID_FIELD, shared.textId);
  for (const { file, id } of shared.files) {
    form.append(SHARE_FIELDS.files, file, file.name);
    form.append(FILE_ID_FIELD, id);
  }
  return form;
}

function fromForm(form: FormData): Shared {
  const ids = form.getAll(FILE_ID_FIELD);
  return {
    text: composeSharedText({
      title: field(form, SHARE_FIELDS.title),
      text: field(form, SHARE_FIELDS.text),
      url: field(form, SHARE_FIELDS.url),
    }),
    textId: field(form, TEXT_ID_FIELD) ?? crypto.randomUUID(),
    // A kept form has an id beside each file it kept; a share sheet's has none, and may hold an empty file input.
    files: form
      .getAll(SHARE_FIELDS.files)
      .filter((f): f is File => f instanceof File && f.size > 0)
      .map((file, index) => {
        const id = ids[index];
        return { file, id: typeof id === "string" ? id : crypto.randomUUID() };
      }),
  };
}

async function keep(key: string, rest: NonNullable<SaveResult["rest"]>): Promise<void> {
  const cache = await caches.open(PENDING_CACHE);
  await cache.put(key, new Response(toForm(rest.shared)));
  if (rest.waitsFor === "online") await self.registration.sync?.register(PENDING_SYNC_TAG).catch(() => undefined);
}

export async function receiveShare({ request }: { request: Request }): Promise<Response> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return Response.redirect("/dashboard?shared=failed", 303);
  }
  const { outcomes, rest } = await save(fromForm(form));
  if (rest) await keep(`/pending-share/${Date.now()}-${crypto.randomUUID()}`, rest);
  if (rest?.waitsFor === "signin") return Response.redirect("/login?shared=pending", 303);
  return Response.redirect(`/dashboard?shared=${worst(rest ? [...outcomes, reported(rest.waitsFor)] : outcomes)}`, 303);
}

let delivering: Promise<ShareOutcome | null> | null = null;

/**
 * Sends the kept shares, oldest first; each leaves the cache once sent. Still signed out or offline, the
 * rest stay for the next try. Resolves to how it went, or null when there was nothing to send.
 */
export function deliverPendingShares(): Promise<ShareOutcome | null> {
  delivering ??= (async () => {
    const cache = await caches.open(PENDING_CACHE);
    const keys = [...(await cache.keys())].sort((a, b) => a.url.localeCompare(b.url));
    const outcomes: ShareOutcome[] = [];
    for (const key of keys) {
      const stored = await cache.match(key);
      if (!stored) continue;
      const result = await save(fromForm(await stored.formData()));
      outcomes.push(...result.outcomes);
      if (result.rest) {
        await keep(new URL(key.url).pathname, result.rest);
        if (result.rest.waitsFor !== "signin") outcomes.push(reported(result.rest.waitsFor));
        break;
      }
      await cache.delete(key);
    }
    return outcomes.length ? worst(outcomes) : null;
  })().finally(() => {
    delivering = null;
  });
  return delivering;
}

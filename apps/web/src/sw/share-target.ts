/**
 * Web Share Target: text and links shared to Daysync become one text message in today's day; each shared
 * file is uploaded (tus, in one PATCH) as a file message. Then the app opens on today. The text is sealed here,
 * with the keys the page keeps in IndexedDB (decision 020). What cannot be sent yet (signed out, offline, or this
 * device not approved to hold the key) is kept in this browser and sent later (deliverPendingShares).
 */
import {
  API,
  composeSharedText,
  formatStoredDate,
  formatStoredTime,
  KEYS_API,
  keysStateSchema,
  responseSchemas,
  SHARE_FIELDS,
  SHARED_TEXT_LIMIT,
  type ShareOutcome,
} from "@daysync/shared";
import { type Sealer, sealTextMessage } from "@daysync/shared/crypto";
import { browserKeyStorage } from "../lib/key-store.ts";

declare const self: ServiceWorkerGlobalScope & {
  registration: { sync?: { register(tag: string): Promise<void> } };
};

type Outcome = "saved" | "failed" | "signin" | "offline" | "locked";

/** What one share holds: one text (already composed, with the message id it keeps across retries) and any files. */
interface Shared {
  text: string;
  textId: string;
  files: File[];
}

/** Shares waiting for a sign-in or the network, each stored whole as a multipart form. */
const PENDING_CACHE = "daysync-pending-shares";
/** Background Sync tag: where supported, the browser wakes the worker to send them once online. */
export const PENDING_SYNC_TAG = "daysync-pending-shares";
/** Field of a kept form that carries the text message's id. */
const TEXT_ID_FIELD = "text_id";

/** A text field of a form; multipart encoding turns line breaks into CRLF, and messages keep LF. */
const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value.replaceAll("\r\n", "\n") : null;
};

const base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""));

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

async function saveText(shared: Shared, stamp: { date: string; time: string }): Promise<Outcome> {
  try {
    const sealing = await currentSealer();
    if ("outcome" in sealing) return sealing.outcome;
    const message = { id: shared.textId, content: shared.text.slice(0, SHARED_TEXT_LIMIT), ...stamp };
    const res = await fetch(API.messages, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(await sealTextMessage(sealing.sealer, message)),
      credentials: "same-origin",
    });
    if (res.status === 401) return "signin";
    // The account's key moved on since the page last synced: kept, and sealed again once the page has caught up.
    if (res.status === 409) return "locked";
    return res.ok ? "saved" : "failed";
  } catch {
    return "offline";
  }
}

async function uploadFile(file: File, stamp: { date: string; time: string }): Promise<Outcome> {
  const metadata = { filename: file.name || "shared file", filetype: file.type, message_id: crypto.randomUUID(), ...stamp };
  try {
    const created = await fetch(API.uploads, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Tus-Resumable": "1.0.0",
        "Upload-Length": String(file.size),
        "Upload-Metadata": Object.entries(metadata)
          .map(([k, v]) => `${k} ${base64(v)}`)
          .join(","),
      },
    });
    if (created.status === 401) return "signin";
    const location = created.headers.get("location");
    if (!created.ok || !location) return "failed";
    const sent = await fetch(new URL(location, self.location.origin), {
      method: "PATCH",
      credentials: "same-origin",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      body: file,
    });
    return sent.ok ? "saved" : "failed";
  } catch {
    return "offline";
  }
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

/** Saves a share in today's day, in order, until it needs a sign-in or the network. */
async function save(shared: Shared): Promise<SaveResult> {
  const now = new Date();
  const stamp = { date: formatStoredDate(now), time: formatStoredTime(now) };
  const outcomes: ShareOutcome[] = [];
  if (shared.text) {
    const outcome = await saveText(shared, stamp);
    if (isWait(outcome)) return { outcomes, rest: { shared, waitsFor: WAITS_FOR[outcome] } };
    outcomes.push(outcome);
  }
  for (const [index, file] of shared.files.entries()) {
    const outcome = await uploadFile(file, stamp);
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
  for (const file of shared.files) form.append(SHARE_FIELDS.files, file, file.name);
  return form;
}

function fromForm(form: FormData): Shared {
  return {
    text: composeSharedText({
      title: field(form, SHARE_FIELDS.title),
      text: field(form, SHARE_FIELDS.text),
      url: field(form, SHARE_FIELDS.url),
    }),
    textId: field(form, TEXT_ID_FIELD) ?? crypto.randomUUID(),
    files: form.getAll(SHARE_FIELDS.files).filter((f): f is File => f instanceof File && f.size > 0),
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

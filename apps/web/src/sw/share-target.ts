/**
 * Web Share Target: text and links shared to Daysync become one text message in today's day; each shared
 * file is uploaded (tus, in one PATCH) as a file message. Then the app opens on today. Shared while signed
 * out, it is kept in this browser and sent once the app has signed in (deliverPendingShares).
 */
import {
  API,
  composeSharedText,
  formatStoredDate,
  formatStoredTime,
  SHARE_FIELDS,
  SHARED_TEXT_LIMIT,
  type ShareOutcome,
} from "@daysync/shared";
import { Queue } from "workbox-background-sync";

type Outcome = ShareOutcome | "signin";

/** What one share holds: one text (already composed) and any files. */
interface Shared {
  text: string;
  files: File[];
}

/** A text shared while offline waits here and is sent when the connection is back (its id makes the retry safe). */
const offlineQueue = new Queue("daysync-shared-text", { maxRetentionTime: 24 * 60 });

/** Shares made while signed out, each stored whole as the multipart form it came as. */
const PENDING_CACHE = "daysync-pending-shares";

const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value : null;
};

const base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""));

async function saveText(content: string, stamp: { date: string; time: string }): Promise<Outcome> {
  const request = new Request(API.messages, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: crypto.randomUUID(), content: content.slice(0, SHARED_TEXT_LIMIT), ...stamp }),
    credentials: "same-origin",
  });
  try {
    const res = await fetch(request.clone());
    if (res.status === 401) return "signin";
    return res.ok ? "saved" : "failed";
  } catch {
    await offlineQueue.pushRequest({ request });
    return "queued";
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
    return "failed";
  }
}

const worst = (outcomes: ShareOutcome[]): ShareOutcome =>
  outcomes.includes("failed") ? "failed" : outcomes.includes("queued") ? "queued" : "saved";

/** Saves a share in today's day, in order; without a session it stops and hands back what is still unsaved. */
async function save(shared: Shared): Promise<{ outcome: ShareOutcome } | { unsaved: Shared }> {
  const now = new Date();
  const stamp = { date: formatStoredDate(now), time: formatStoredTime(now) };
  const outcomes: ShareOutcome[] = [];
  if (shared.text) {
    const outcome = await saveText(shared.text, stamp);
    if (outcome === "signin") return { unsaved: shared };
    outcomes.push(outcome);
  }
  for (const [index, file] of shared.files.entries()) {
    const outcome = await uploadFile(file, stamp);
    if (outcome === "signin") return { unsaved: { text: "", files: shared.files.slice(index) } };
    outcomes.push(outcome);
  }
  return { outcome: worst(outcomes) };
}

function toForm(shared: Shared): FormData {
  const form = new FormData();
  if (shared.text) form.set(SHARE_FIELDS.text, shared.text);
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
    files: form.getAll(SHARE_FIELDS.files).filter((f): f is File => f instanceof File && f.size > 0),
  };
}

async function keepForSignIn(shared: Shared): Promise<void> {
  const cache = await caches.open(PENDING_CACHE);
  await cache.put(`/pending-share/${Date.now()}-${crypto.randomUUID()}`, new Response(toForm(shared)));
}

export async function receiveShare({ request }: { request: Request }): Promise<Response> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return Response.redirect("/dashboard?shared=failed", 303);
  }
  const result = await save(fromForm(form));
  if ("outcome" in result) return Response.redirect(`/dashboard?shared=${result.outcome}`, 303);
  await keepForSignIn(result.unsaved);
  return Response.redirect("/login?shared=pending", 303);
}

let delivering: Promise<ShareOutcome | null> | null = null;

/**
 * Sends the shares kept while signed out, oldest first; each leaves the cache once sent. Still without a
 * session, the rest stay for the next sign-in. Resolves to how it went, or null when there was nothing to send.
 */
export function deliverPendingShares(): Promise<ShareOutcome | null> {
  delivering ??= (async () => {
    const cache = await caches.open(PENDING_CACHE);
    const keys = [...(await cache.keys())].sort((a, b) => a.url.localeCompare(b.url));
    const outcomes: ShareOutcome[] = [];
    for (const key of keys) {
      const stored = await cache.match(key);
      const result = stored ? await save(fromForm(await stored.formData())) : { outcome: "failed" as const };
      if (!("outcome" in result)) {
        await cache.put(key, new Response(toForm(result.unsaved)));
        break;
      }
      outcomes.push(result.outcome);
      await cache.delete(key);
    }
    return outcomes.length ? worst(outcomes) : null;
  })().finally(() => {
    delivering = null;
  });
  return delivering;
}

/**
 * Web Share Target: text and links shared to Daysync become one text message in today's day; each shared
 * file is uploaded (tus, in one PATCH) as a file message. Then the app opens on today.
 */
import { API, composeSharedText, formatStoredDate, formatStoredTime, SHARE_FIELDS, SHARED_TEXT_LIMIT } from "@daysync/shared";
import { Queue } from "workbox-background-sync";

type Outcome = "saved" | "queued" | "signin" | "failed";

/** A text shared while offline waits here and is sent when the connection is back (its id makes the retry safe). */
const offlineQueue = new Queue("daysync-shared-text", { maxRetentionTime: 24 * 60 });

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

export async function receiveShare({ request }: { request: Request }): Promise<Response> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return Response.redirect("/dashboard?shared=failed", 303);
  }
  const text = composeSharedText({
    title: field(form, SHARE_FIELDS.title),
    text: field(form, SHARE_FIELDS.text),
    url: field(form, SHARE_FIELDS.url),
  });
  const files = form.getAll(SHARE_FIELDS.files).filter((f): f is File => f instanceof File && f.size > 0);
  const now = new Date();
  const stamp = { date: formatStoredDate(now), time: formatStoredTime(now) };

  const outcomes: Outcome[] = [];
  if (text) outcomes.push(await saveText(text, stamp));
  for (const file of files) {
    if (outcomes.includes("signin")) break;
    outcomes.push(await uploadFile(file, stamp));
  }
  if (outcomes.includes("signin")) return Response.redirect("/login", 303);
  const worst = outcomes.includes("failed") ? "failed" : outcomes.includes("queued") ? "queued" : "saved";
  return Response.redirect(`/dashboard?shared=${worst}`, 303);
}

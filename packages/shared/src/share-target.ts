/** The Web Share Target of the installed app: what a phone's share sheet sends, and how it becomes a message. */

/** The manifest's share_target action; the service worker answers it (multipart POST). */
export const SHARE_TARGET_PATH = "/share-target";

/** Longest text message (MAX_MESSAGE_LENGTH of the schemas, kept here so the service worker needs no zod). */
export const SHARED_TEXT_LIMIT = 20_000;

/** How a shared item ended: what the app says about it once it opens. */
export type ShareOutcome = "saved" | "queued" | "locked" | "failed";

/**
 * What is shared while signed out or offline waits in the service worker. The signed-in app asks for it
 * to be sent with `deliver`; the worker answers with `outcome` when there was something to send.
 */
export const PENDING_SHARE_MESSAGES = { deliver: "daysync:deliver-pending-shares", outcome: "daysync:share-outcome" } as const;

/** Form field names of the manifest's share_target params. */
export const SHARE_FIELDS = { title: "title", text: "text", url: "url", files: "files" } as const;

/**
 * One text message from what was shared. Share sheets fill the fields unevenly (Android often puts the link
 * in `text` and a page title in `title`), so repeats are dropped and the rest is kept in title, text, link order.
 */
export function composeSharedText(shared: { title?: string | null; text?: string | null; url?: string | null }): string {
  const title = shared.title?.trim() ?? "";
  const text = shared.text?.trim() ?? "";
  const url = shared.url?.trim() ?? "";
  const parts: string[] = [];
  if (title && !text.includes(title) && !url.includes(title)) parts.push(title);
  if (text) parts.push(text);
  if (url && !text.includes(url)) parts.push(url);
  return parts.join("\n");
}

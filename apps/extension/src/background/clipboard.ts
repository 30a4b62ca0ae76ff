/**
 * Writing the clipboard from the background: through the offscreen document in Chrome (a service worker has no
 * clipboard), or directly in Firefox, whose background is a page.
 */
import { z } from "zod";
import { copyToClipboard } from "../../../web/src/lib/copy-to-clipboard.ts";
import { copyRequestSchema } from "../lib/messages.ts";

const OFFSCREEN = "offscreen.html";

async function offscreenReady(): Promise<void> {
  try {
    await chrome.offscreen.createDocument({ url: OFFSCREEN, reasons: ["CLIPBOARD"], justification: "Copy texts from your other devices" });
  } catch {
    // There is one already (a browser allows a single offscreen document).
  }
}

/** Whether `text` is in the clipboard now. */
export async function copyInBackground(text: string): Promise<boolean> {
  if (typeof chrome.offscreen === "undefined") return copyToClipboard(text);
  await offscreenReady();
  const answer: unknown = await chrome.runtime.sendMessage(copyRequestSchema.parse({ type: "copy", text })).catch(() => false);
  return z.boolean().catch(false).parse(answer);
}

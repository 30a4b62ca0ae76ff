/**
 * Chrome's offscreen document, the one place a Manifest V3 extension's background can write the clipboard from: it
 * copies what the worker asks (a notification's Copy, or the automatic copy) and answers whether it did.
 */
import "../../../web/src/lib/zod-jitless.ts";
import { copyToClipboard } from "../../../web/src/lib/copy-to-clipboard.ts";
import { copyRequestSchema } from "../lib/messages.ts";

chrome.runtime.onMessage.addListener((message, _sender, respond) => {
  const read = copyRequestSchema.safeParse(message);
  if (!read.success) return undefined;
  void copyToClipboard(read.data.text).then(respond);
  return true;
});

/** The extension's background: starts with the browser, and again when a page says it just paired. */
import "../../../web/src/lib/zod-jitless.ts";
import { backgroundMessageSchema } from "../lib/messages.ts";

chrome.runtime.onInstalled.addListener(() => {
  void chrome.runtime.openOptionsPage();
});

chrome.runtime.onMessage.addListener((message) => {
  backgroundMessageSchema.safeParse(message);
  return undefined;
});

/** What the extension's pages tell its background service worker, one zod schema for both ends. */
import { z } from "zod";

export const backgroundMessageSchema = z.discriminatedUnion("type", [
  /** Paired just now: start the session's live connection and the menu. */
  z.object({ type: z.literal("connected") }),
]);
export type BackgroundMessage = z.infer<typeof backgroundMessageSchema>;

/** Tells the background; a background that is not listening (being restarted) hears of it when it starts anyway. */
export async function notifyBackground(message: BackgroundMessage): Promise<void> {
  await chrome.runtime.sendMessage(message).catch(() => undefined);
}

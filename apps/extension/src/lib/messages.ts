/** What the extension's pages and its background worker tell each other, one zod schema for each direction. */
import { z } from "zod";

export const backgroundMessageSchema = z.discriminatedUnion("type", [
  /** Paired just now: start the session's live connection and the menu. */
  z.object({ type: z.literal("connected") }),
  /** The popup's message box: queue this text (answered with `sendAnswerSchema`). */
  z.object({ type: z.literal("send"), content: z.string() }),
  /** The setup page signed this browser out: forget the session. */
  z.object({ type: z.literal("signed-out") }),
  /** The popup showed today's messages: none is unread now. */
  z.object({ type: z.literal("seen") }),
]);
export type BackgroundMessage = z.infer<typeof backgroundMessageSchema>;

export const sendAnswerSchema = z.discriminatedUnion("queued", [
  z.object({ queued: z.literal(true) }),
  z.object({ queued: z.literal(false), reason: z.string() }),
]);
export type SendAnswer = z.infer<typeof sendAnswerSchema>;

/** To open pages: today's messages changed (one came, or one of ours was stored). */
export const pageMessageSchema = z.object({ type: z.literal("messages-changed") });

/** Tells the background; a background that is not listening (being restarted) hears of it when it starts anyway. */
export async function notifyBackground(message: BackgroundMessage): Promise<unknown> {
  return chrome.runtime.sendMessage(message).catch(() => undefined);
}

/** Tells open pages (the popup); none open is no error. */
export async function notifyPages(): Promise<void> {
  await chrome.runtime.sendMessage(pageMessageSchema.parse({ type: "messages-changed" })).catch(() => undefined);
}

/** To the offscreen document (Chrome): copy this text; answered with whether it was copied. */
export const copyRequestSchema = z.object({ type: z.literal("copy"), text: z.string() });

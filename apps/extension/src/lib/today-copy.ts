/**
 * The day's messages as the server sent them (still sealed), kept for the popup offline as the app keeps its offline
 * copy: never opened text on disk. Forgotten with the session.
 */
import { type Message, messageSchema } from "@daysync/shared";
import { z } from "zod";

const KEY = "today-copy";
const copySchema = z.object({ date: z.string(), messages: z.array(messageSchema) });

export async function keepTodayCopy(date: string, messages: Message[]): Promise<void> {
  await chrome.storage.local.set({ [KEY]: { date, messages } });
}

/** The kept messages of `date`; none when what is kept is of another day. */
export async function todayCopy(date: string): Promise<Message[]> {
  const copy = copySchema.safeParse((await chrome.storage.local.get(KEY))[KEY]);
  return copy.success && copy.data.date === date ? copy.data.messages : [];
}

export async function forgetTodayCopy(): Promise<void> {
  await chrome.storage.local.remove(KEY);
}

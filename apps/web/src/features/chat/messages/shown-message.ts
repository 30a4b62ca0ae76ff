import type { Message } from "@daysync/shared";

/**
 * What a message list shows of a stored message: a day's message and a discussion's message both fit (the
 * device is only known, and shown, in the user's own days).
 */
export type ShownMessage = Pick<
  Message,
  "id" | "type" | "content" | "filename" | "file_url" | "file_size" | "file_key" | "date" | "time" | "timestamps" | "epoch" | "preview"
> & {
  device?: Message["device"];
  /** In a discussion: its author as the members know them. */
  author?: { id: string; display_name: string };
};

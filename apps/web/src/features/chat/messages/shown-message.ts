import type { Message } from "@daysync/shared";
import type { Shown } from "../../../lib/shown.ts";

/**
 * What a message list shows of a stored message: a day's message and a discussion's message both fit (the
 * device is only known, and shown, in the user's own days), opened by the chat's data hooks (api/) as they come in.
 */
export type ShownMessage = Pick<
  Message,
  "id" | "type" | "content" | "filename" | "file_url" | "file_size" | "file_key" | "date" | "time" | "timestamps" | "epoch" | "preview"
> & {
  device?: Message["device"];
  /** In an encrypted discussion: the discussion, and the room key generation and member key it was sealed under and by. */
  discussion_id?: string;
  generation?: number;
  sender_key_id?: string;
  /** In a discussion: its author as the members know them. */
  author?: { id: string; display_name: string };
  /** Its text (a file's: its name) as this device shows it: the views never open a message themselves. */
  shown: Shown;
};

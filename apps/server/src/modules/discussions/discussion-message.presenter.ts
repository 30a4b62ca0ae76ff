/** A discussion's message as every member sees it: its author by member id and display name only, no device. */
import type { DiscussionMessage, MessageType } from "@daysync/shared";
import type { MessagesTable } from "../../db/schema.ts";

export function presentDiscussionMessage(row: MessagesTable, author: { id: string; display_name: string }): DiscussionMessage {
  return {
    id: row.id,
    type: row.type as MessageType,
    content: row.content,
    filename: row.filename,
    file_url: row.file_url,
    date: row.date,
    time: row.time,
    url: row.url,
    timestamps: Number(row.created_at),
    discussion_id: row.space_id,
    author: { id: author.id, display_name: author.display_name },
  };
}

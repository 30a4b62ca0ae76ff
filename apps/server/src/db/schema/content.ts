/** What people keep and share: spaces and their members, days, messages, uploads, and the change log devices replay. */
import type { DepartureReason, DiscussionRole } from "@daysync/shared";

/**
 * Where messages and files belong (decision 016): a user's personal space (its id is the user's id; it has one
 * member, its owner, and follows the owner's plan) or a discussion (shared, ends at `ends_at`).
 */
export interface SpacesTable {
  id: string;
  kind: "personal" | "discussion";
  /** A discussion's title; "" for a personal space. */
  title: string;
  /** A discussion's ID to read out and type: 10 characters of Crockford base32. Null for a personal space. */
  public_id: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  /** When a discussion ends and is deleted; null for a personal space. */
  ends_at: number | null;
}

/** Who may read and write a space. `id` is what other members may know of a member; never the user id. */
export interface SpaceMembersTable {
  id: string;
  space_id: string;
  user_id: string;
  /** The name the member chose for this discussion; the only name other members see. */
  display_name: string;
  role: DiscussionRole;
  joined_at: number;
  /** Messages created after this are unread for the member. */
  last_read_at: number;
  /**
   * Set when the member left or was removed: the row stays so their messages keep their name, but it grants
   * nothing. One who left may join again (the row is reused); one who was removed may not.
   */
  left_at: number | null;
  left_reason: DepartureReason | null;
}

export interface DateMessagesTable {
  id: string;
  user_id: string;
  date: string;
  /** yyyy-mm-dd of `date`, for ordering and uniqueness per user. */
  day_key: string;
  last_message_time: string;
  last_message_type: string;
  last_message: string;
  /** The epoch of `last_message` when it is a sealed preview; null when it is in clear. */
  last_message_epoch: number | null;
  /** The message `last_message` is of, and the session that sent it (a sealed preview is bound to both). */
  last_message_id: string | null;
  last_message_device_id: string | null;
  count_messages: number;
  created_at: number;
  updated_at: number;
}

export interface MessagesTable {
  id: string;
  space_id: string;
  /** The author. */
  user_id: string;
  /** The day of a personal space's message; null in a discussion. */
  date_message_id: string | null;
  type: string;
  content: string;
  filename: string;
  file_url: string;
  date: string;
  time: string;
  url: string;
  created_at: number;
  /** A file message's size in bytes; null for text, and for files stored before this column. */
  file_size: number | null;
  /** The session that sent it (it may have ended since); null for messages older than this column. */
  device_id: string | null;
  /** That device's name, as last known: updated when the device is renamed, kept once it is signed out. */
  device_name: string | null;
  /** The epoch `content`, `filename`, `preview` and `file_key` are sealed under (decision 020); null: in clear. */
  epoch: number | null;
  /** The sealed preview of a sealed message ("" in clear: the summary is cut from the content then). */
  preview: string;
  /** A sealed file message's sealed file key; "" otherwise. */
  file_key: string;
  /** In an encrypted discussion: the room key generation its fields are sealed under, and its sender's member key id. */
  generation?: number | null;
  sender_key_id?: string | null;
}

/**
 * Ids of messages the retention sweep deleted, so that a late retry of one is refused (410) instead of
 * storing it again as new. Forgotten with the change log, long after such a retry could pass the date check.
 */
export interface ExpiredMessagesTable {
  id: string;
  user_id: string;
  space_id: string;
  expired_at: number;
}

/** A finished upload: the stored file behind a file message. The bytes live in storage under `id`. */
export interface UploadsTable {
  id: string;
  /** The uploader. */
  user_id: string;
  space_id: string;
  message_id: string;
  /** The name the file had on the device; only for display and the download's file name ("" for a sealed file). */
  filename: string;
  mime: string;
  /** Bytes stored: a sealed file's sealed length. */
  size: number;
  created_at: number;
  /** The epoch its file message was sealed under (docs/protocol/encryption.md, "File records"); null: a file in clear. */
  epoch: number | null;
}

/** The per-user change log the live connection replays from. It holds references, never content. */
export interface UserEventsTable {
  user_id: string;
  seq: number;
  kind: string;
  ref: string;
  created_at: number;
}

/** A device's sealed note of the numbered messages it deleted on `date` (`deletion-notes.ts`); the server cannot read it. */
export interface DeletionNotesTable {
  id: string;
  user_id: string;
  date: string;
  /** The session that left it, bound into its seal. */
  device_id: string;
  note: string;
  created_at: number;
}

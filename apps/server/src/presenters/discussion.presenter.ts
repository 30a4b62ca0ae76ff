/** What leaves the server of a discussion: never a member's email, user id or device name (decision 016). */
import type {
  DepartureReason,
  Discussion,
  DiscussionMember,
  DiscussionMessage,
  DiscussionRole,
  MemberChange,
  MyDiscussion,
} from "@daysync/shared";
import type { MessagesTable } from "../db/schema.ts";
import { presentMessageContent } from "./messages.presenter.ts";

/** A discussion's row with what is counted over its members and messages. */
export interface DiscussionRow {
  id: string;
  public_id: string | null;
  title: string;
  created_at: number;
  ends_at: number | null;
  member_count: number;
  last_message_at: number | null;
  /** An encrypted discussion's current generation (absent or null: in clear). */
  room_generation?: number | null;
}

/** The same row with the viewing member's own part. */
export interface MyDiscussionRow extends DiscussionRow {
  member_id: string;
  display_name: string;
  role: DiscussionRole;
  unread: number;
}

export function presentDiscussion(row: DiscussionRow): Discussion {
  return {
    id: row.id,
    public_id: row.public_id ?? "",
    title: row.title,
    created_at: Number(row.created_at),
    ends_at: Number(row.ends_at ?? 0),
    member_count: Number(row.member_count),
    last_message_at: row.last_message_at === null ? null : Number(row.last_message_at),
    ...(row.room_generation === null || row.room_generation === undefined
      ? {}
      : { encrypted: true, current_generation: Number(row.room_generation) }),
  };
}

export function presentMyDiscussion(row: MyDiscussionRow): MyDiscussion {
  return {
    ...presentDiscussion(row),
    member_id: row.member_id,
    display_name: row.display_name,
    role: row.role,
    unread: Number(row.unread),
  };
}

/** A message as every member sees it: its author by member id and display name only, no device. */
export function presentDiscussionMessage(row: MessagesTable, author: { id: string; display_name: string }): DiscussionMessage {
  return {
    ...presentMessageContent(row),
    discussion_id: row.space_id,
    author: { id: author.id, display_name: author.display_name },
    ...(row.generation === null || row.generation === undefined
      ? {}
      : {
          generation: Number(row.generation),
          sender_key_id: row.sender_key_id ?? "",
          preview: row.preview,
          ...(row.file_key === "" ? {} : { file_key: row.file_key }),
        }),
  };
}

/** A member as the others know them. */
export interface MemberRow {
  id: string;
  display_name: string;
  role: DiscussionRole;
}

/** A member row with when they came and went, for the lines between a discussion's messages. */
export interface MemberHistoryRow extends MemberRow {
  joined_at: number;
  left_at: number | null;
  left_reason: DepartureReason | null;
}

/** Who came and went, oldest first: each row's latest join (the creator's is the start), and its departure if any. */
export function presentMemberChanges(rows: MemberHistoryRow[]): MemberChange[] {
  const changes = rows.flatMap((row): MemberChange[] => {
    const who = { member_id: row.id, display_name: row.display_name };
    const came: MemberChange = { ...who, kind: row.role === "owner" ? "created" : "joined", at: Number(row.joined_at) };
    if (row.left_at === null || row.left_reason === null) return [came];
    return [came, { ...who, kind: row.left_reason, at: Number(row.left_at) }];
  });
  return changes.sort((a, b) => a.at - b.at || a.member_id.localeCompare(b.member_id));
}

/** A member as every member sees them: member id, display name and role; never the user behind them. */
export function presentMember(row: MemberRow): DiscussionMember {
  return { id: row.id, display_name: row.display_name, role: row.role };
}

/**
 * What members are sent of a discussion: never a member's email, user id or device name (decision 016). Takes
 * rows already read as numbers and strings.
 */
import type { Discussion, MyDiscussion } from "@daysync/shared";

interface DiscussionRow {
  id: string;
  public_id: string;
  title: string;
  created_at: number;
  ends_at: number;
  member_count: number;
  last_message_at: number | null;
}

interface MyDiscussionRow extends DiscussionRow {
  member_id: string;
  display_name: string;
  role: "owner" | "member";
  unread: number;
}

export function presentDiscussion(row: DiscussionRow): Discussion {
  return {
    id: row.id,
    public_id: row.public_id,
    title: row.title,
    created_at: row.created_at,
    ends_at: row.ends_at,
    member_count: row.member_count,
    last_message_at: row.last_message_at,
  };
}

export function presentMyDiscussion(row: MyDiscussionRow): MyDiscussion {
  return { ...presentDiscussion(row), member_id: row.member_id, display_name: row.display_name, role: row.role, unread: row.unread };
}

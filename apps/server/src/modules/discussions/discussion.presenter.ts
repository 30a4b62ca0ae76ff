/**
 * What members are sent of a discussion and of each other: a member is only an opaque member id, the name they
 * chose for it and their role; never a user id, email or device name.
 */
import type { Discussion, DiscussionMember, MyDiscussion } from "@daysync/shared";
import type { DiscussionRow, MemberRow, MyDiscussionRow } from "./discussions.repository.ts";

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

export function presentMember(row: MemberRow): DiscussionMember {
  return { id: row.id, display_name: row.display_name, role: row.role };
}

export function presentMyDiscussion(row: MyDiscussionRow): MyDiscussion {
  return { ...presentDiscussion(row), member_id: row.member_id, display_name: row.display_name, role: row.role, unread: row.unread };
}

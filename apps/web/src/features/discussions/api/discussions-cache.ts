/** The discussions' cache entries (the sidebar's list, one discussion with its members, why one closed) and their writers. */
import type {
  Discussion,
  DiscussionClosedReason,
  DiscussionDetails,
  DiscussionMember,
  DiscussionMessage,
  MemberChange,
  MyDiscussion,
} from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";

export const discussionsKey = {
  /** The user's open discussions (sidebar). */
  list: ["discussions"] as const,
  /** One discussion with its members. */
  one: (id: string) => ["discussion", id] as const,
  /** Why the user is no longer in a discussion (set by the live connection), for a view still showing it. */
  closed: (id: string) => ["discussion-closed", id] as const,
};

/** The latest activity (a message, else creation) first. */
function sortDiscussions(list: MyDiscussion[]): MyDiscussion[] {
  return [...list].sort((a, b) => (b.last_message_at ?? b.created_at) - (a.last_message_at ?? a.created_at));
}

/** Keeps the caller's own fields (member id, name, role, unread) and takes what every member may know from `discussion`. */
function merge(mine: MyDiscussion, discussion: Discussion): MyDiscussion {
  return { ...mine, ...discussion };
}

/** The caller's view of a discussion, as a create, join, rename or extend answered it. */
export function setDiscussionDetails(queryClient: QueryClient, details: DiscussionDetails): void {
  queryClient.setQueryData<DiscussionDetails>(discussionsKey.one(details.discussion.id), details);
  queryClient.setQueryData<MyDiscussion[]>(discussionsKey.list, (old) =>
    old ? sortDiscussions([details.discussion, ...old.filter((d) => d.id !== details.discussion.id)]) : old,
  );
  queryClient.removeQueries({ queryKey: discussionsKey.closed(details.discussion.id), exact: true });
}

/** `discussion.upserted`: created, joined, renamed, extended, or its members changed. */
export function upsertDiscussion(
  queryClient: QueryClient,
  discussion: Discussion,
  members: DiscussionMember[],
  memberChanges: MemberChange[],
): void {
  let known = false;
  queryClient.setQueryData<MyDiscussion[]>(discussionsKey.list, (old) => {
    if (!old) return old;
    known = old.some((d) => d.id === discussion.id);
    return known ? sortDiscussions(old.map((d) => (d.id === discussion.id ? merge(d, discussion) : d))) : old;
  });
  // Joined on another device: the caller's own fields only come with the list.
  if (!known) void queryClient.invalidateQueries({ queryKey: discussionsKey.list, exact: true });
  queryClient.setQueryData<DiscussionDetails>(discussionsKey.one(discussion.id), (old) =>
    old ? { discussion: merge(old.discussion, discussion), members, member_changes: memberChanges } : old,
  );
}

/** Why the user is no longer in a discussion, as its open view tells them: its creator is told they ended it. */
export type ClosedNotice = DiscussionClosedReason | "ended_by_you";

/** `discussion.closed`, or the caller ended or left it: it leaves the sidebar, and an open view says why. */
export function closeDiscussion(queryClient: QueryClient, id: string, reason: DiscussionClosedReason): void {
  const mine =
    queryClient.getQueryData<DiscussionDetails>(discussionsKey.one(id))?.discussion ??
    queryClient.getQueryData<MyDiscussion[]>(discussionsKey.list)?.find((d) => d.id === id);
  // The live event and this tab's own answer both come here, in either order: the second finds the rows gone.
  const told = queryClient.getQueryData<ClosedNotice>(discussionsKey.closed(id));
  const byMe = mine ? mine.role === "owner" : told === "ended_by_you";
  const notice: ClosedNotice = reason === "ended" && byMe ? "ended_by_you" : reason;
  queryClient.setQueryData<ClosedNotice>(discussionsKey.closed(id), notice);
  queryClient.setQueryData<MyDiscussion[]>(discussionsKey.list, (old) => old?.filter((d) => d.id !== id));
  queryClient.removeQueries({ queryKey: discussionsKey.one(id), exact: true });
}

/** A stored message moves its discussion up the list; another member's counts as unread until read. */
export function noteDiscussionMessage(queryClient: QueryClient, message: DiscussionMessage, discussion?: Discussion): void {
  const id = message.discussion_id;
  queryClient.setQueryData<MyDiscussion[]>(discussionsKey.list, (old) =>
    old
      ? sortDiscussions(
          old.map((d) => {
            if (d.id !== id) return d;
            const updated = discussion ? merge(d, discussion) : { ...d, last_message_at: message.timestamps };
            return message.author.id === d.member_id ? updated : { ...updated, unread: d.unread + 1 };
          }),
        )
      : old,
  );
}

/** Everything up to now is read. */
export function markDiscussionRead(queryClient: QueryClient, id: string): void {
  queryClient.setQueryData<MyDiscussion[]>(discussionsKey.list, (old) =>
    old?.some((d) => d.id === id && d.unread > 0) ? old.map((d) => (d.id === id ? { ...d, unread: 0 } : d)) : old,
  );
}

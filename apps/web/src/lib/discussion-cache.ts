/** Applies discussion changes (live events, confirmed sends, the caller's own actions) to the React Query cache. */
import type {
  Discussion,
  DiscussionClosedReason,
  DiscussionDetails,
  DiscussionMember,
  DiscussionMessage,
  MyDiscussion,
  responseSchemas,
} from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { queryKeys } from "./query-keys.ts";

export type DiscussionMessagesResponse = z.infer<typeof responseSchemas.discussionMessages>;

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
  queryClient.setQueryData<DiscussionDetails>(queryKeys.discussion(details.discussion.id), details);
  queryClient.setQueryData<MyDiscussion[]>(queryKeys.discussions, (old) =>
    old ? sortDiscussions([details.discussion, ...old.filter((d) => d.id !== details.discussion.id)]) : old,
  );
  queryClient.setQueryData<DiscussionMessagesResponse>(queryKeys.discussionMessages(details.discussion.id), (old) =>
    old ? { ...old, discussion: details.discussion } : old,
  );
  queryClient.removeQueries({ queryKey: queryKeys.discussionClosed(details.discussion.id), exact: true });
}

/** `discussion.upserted`: created, joined, renamed, extended, or its members changed. */
export function upsertDiscussion(queryClient: QueryClient, discussion: Discussion, members: DiscussionMember[]): void {
  let known = false;
  queryClient.setQueryData<MyDiscussion[]>(queryKeys.discussions, (old) => {
    if (!old) return old;
    known = old.some((d) => d.id === discussion.id);
    return known ? sortDiscussions(old.map((d) => (d.id === discussion.id ? merge(d, discussion) : d))) : old;
  });
  // Joined on another device: the caller's own fields only come with the list.
  if (!known) void queryClient.invalidateQueries({ queryKey: queryKeys.discussions, exact: true });
  queryClient.setQueryData<DiscussionDetails>(queryKeys.discussion(discussion.id), (old) =>
    old ? { discussion: merge(old.discussion, discussion), members } : old,
  );
  queryClient.setQueryData<DiscussionMessagesResponse>(queryKeys.discussionMessages(discussion.id), (old) =>
    old ? { ...old, discussion: merge(old.discussion, discussion) } : old,
  );
}

/** `discussion.closed`, or the caller ended or left it: it leaves the sidebar, and an open view says why. */
export function closeDiscussion(queryClient: QueryClient, id: string, reason: DiscussionClosedReason): void {
  queryClient.setQueryData<DiscussionClosedReason>(queryKeys.discussionClosed(id), reason);
  queryClient.setQueryData<MyDiscussion[]>(queryKeys.discussions, (old) => old?.filter((d) => d.id !== id));
  queryClient.removeQueries({ queryKey: queryKeys.discussion(id), exact: true });
  queryClient.removeQueries({ queryKey: queryKeys.discussionMessages(id), exact: true });
}

/** A stored message (our own send, or `discussion.message.created`); another member's counts as unread until read. */
export function applyDiscussionMessage(queryClient: QueryClient, message: DiscussionMessage, discussion?: Discussion): void {
  const id = message.discussion_id;
  queryClient.setQueryData<DiscussionMessagesResponse>(queryKeys.discussionMessages(id), (old) => {
    if (!old) return old;
    const others = old.messages.filter((m) => m.id !== message.id);
    return { ...old, messages: [...others, message].sort((a, b) => a.timestamps - b.timestamps) };
  });
  queryClient.setQueryData<MyDiscussion[]>(queryKeys.discussions, (old) =>
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

export function removeDiscussionMessages(queryClient: QueryClient, discussionId: string | null, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  queryClient.setQueriesData<DiscussionMessagesResponse>(
    { queryKey: discussionId ? queryKeys.discussionMessages(discussionId) : queryKeys.discussionMessagesAll },
    (old) => (old?.messages.some((m) => gone.has(m.id)) ? { ...old, messages: old.messages.filter((m) => !gone.has(m.id)) } : old),
  );
}

/** Everything up to now is read. */
export function markDiscussionRead(queryClient: QueryClient, id: string): void {
  queryClient.setQueryData<MyDiscussion[]>(queryKeys.discussions, (old) =>
    old?.some((d) => d.id === id && d.unread > 0) ? old.map((d) => (d.id === id ? { ...d, unread: 0 } : d)) : old,
  );
}

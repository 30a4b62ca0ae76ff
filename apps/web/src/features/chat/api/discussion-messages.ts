/** A discussion's messages: the query, its key and the writers that keep it current (app/ applies changes through them). */
import { DISCUSSIONS_API, type Discussion, type DiscussionMessage, responseSchemas } from "@daysync/shared";
import { type QueryClient, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { api } from "../../../lib/api-client.ts";
import { useOpenedMessages } from "../../../lib/sealing/opened-messages.ts";
import { useOpenedRoomMessages } from "../../../lib/sealing/room-hooks.ts";

type DiscussionMessagesResponse = z.infer<typeof responseSchemas.discussionMessages>;

export const discussionMessagesKey = {
  all: ["discussion-messages"] as const,
  of: (discussionId: string) => ["discussion-messages", discussionId] as const,
};

/** A discussion's live messages, oldest first, with the reader's own view of it; kept current by the live connection. */
export function useDiscussionMessages(id: string) {
  return useQuery({
    queryKey: discussionMessagesKey.of(id),
    queryFn: ({ signal }) => api.get(DISCUSSIONS_API.messages(id), responseSchemas.discussionMessages, signal),
    // A 404 (ended, removed) will not change by asking again.
    retry: (count, error) => !(error instanceof Error && "status" in error && error.status === 404) && count < 2,
  });
}

const NO_MESSAGES: readonly DiscussionMessage[] = [];

/** A discussion's messages as its page shows them: the query (its cache holds them as sent) and its messages opened here. */
export function useOpenedDiscussionMessages(id: string) {
  const query = useDiscussionMessages(id);
  // A discussion in clear (one from before encryption) shows its messages as they are: not the user's days, where one
  // in clear may be the server's; an encrypted discussion's are opened with its room key.
  const clear = useOpenedMessages(query.data?.messages ?? NO_MESSAGES, false);
  const messages = useOpenedRoomMessages(id, clear);
  return { query, messages };
}

/** A stored message (our own send, or `discussion.message.created`). */
export function addDiscussionMessage(queryClient: QueryClient, message: DiscussionMessage): void {
  queryClient.setQueryData<DiscussionMessagesResponse>(discussionMessagesKey.of(message.discussion_id), (old) => {
    if (!old) return old;
    const others = old.messages.filter((m) => m.id !== message.id);
    return { ...old, messages: [...others, message].sort((a, b) => a.timestamps - b.timestamps) };
  });
}

/** Messages deleted from one discussion, or (null) from whichever holds them. */
export function removeDiscussionMessages(queryClient: QueryClient, discussionId: string | null, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  queryClient.setQueriesData<DiscussionMessagesResponse>(
    { queryKey: discussionId ? discussionMessagesKey.of(discussionId) : discussionMessagesKey.all },
    (old) => (old?.messages.some((m) => gone.has(m.id)) ? { ...old, messages: old.messages.filter((m) => !gone.has(m.id)) } : old),
  );
}

/** What every member may know of the discussion changed; the reader's own fields stay. */
export function updateDiscussionOfMessages(queryClient: QueryClient, discussion: Discussion): void {
  queryClient.setQueryData<DiscussionMessagesResponse>(discussionMessagesKey.of(discussion.id), (old) =>
    old ? { ...old, discussion: { ...old.discussion, ...discussion } } : old,
  );
}

/** The reader is no longer in the discussion: its messages go from this tab. */
export function dropDiscussionMessages(queryClient: QueryClient, discussionId: string): void {
  queryClient.removeQueries({ queryKey: discussionMessagesKey.of(discussionId), exact: true });
}

/** What is shown may be wrong (a refused deletion): load every discussion's messages again. */
export function reloadDiscussionMessages(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: discussionMessagesKey.all });
}

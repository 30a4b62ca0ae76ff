import { DISCUSSIONS_API, responseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** A discussion's live messages, oldest first, with the reader's own view of it; kept current by the live connection. */
export function useDiscussionMessages(id: string) {
  return useQuery({
    queryKey: queryKeys.discussionMessages(id),
    queryFn: ({ signal }) => api.get(DISCUSSIONS_API.messages(id), responseSchemas.discussionMessages, signal),
    // A 404 (ended, removed) will not change by asking again.
    retry: (count, error) => !(error instanceof Error && "status" in error && error.status === 404) && count < 2,
  });
}

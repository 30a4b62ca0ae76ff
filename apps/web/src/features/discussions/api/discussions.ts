/** The discussion calls of the web app, each with the shared schema of its answer and its effect on the caches. */
import { type CreateDiscussionInput, DISCUSSIONS_API, type DiscussionDetails, responseSchemas } from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, apiFetch } from "../../../lib/api-client.ts";
import { reloadRoom } from "../../../lib/sealing/room-hooks.ts";
import { useSessionServices } from "../../../lib/session-services.ts";
import { type ClosedNotice, discussionsKey, markDiscussionRead } from "./discussions-cache.ts";

const notFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/** The user's open discussions, latest activity first; kept current by the live connection. */
export function useMyDiscussions() {
  return useQuery({
    queryKey: discussionsKey.list,
    queryFn: async ({ signal }) => (await api.get(DISCUSSIONS_API.list, responseSchemas.discussions, signal)).discussions,
  });
}

/** One discussion with its members. A 404 (ended, left, removed, never a member) is final. */
export function useDiscussion(id: string) {
  return useQuery({
    queryKey: discussionsKey.one(id),
    queryFn: ({ signal }) => api.get(DISCUSSIONS_API.one(id), responseSchemas.discussion, signal),
    retry: (count, error) => !notFound(error) && count < 2,
  });
}

/** Why the user is no longer in this discussion, when the live connection said so while it was open. */
export function useClosedReason(id: string) {
  return useQuery<ClosedNotice | null>({
    queryKey: discussionsKey.closed(id),
    queryFn: () => null,
    enabled: false,
    staleTime: Number.POSITIVE_INFINITY,
  }).data;
}

/**
 * Every new discussion is encrypted (docs/protocol/encryption.md, "Encrypted discussions"): this device makes its id
 * and first key and seals the title and the name (lib/sealing/rooms.ts); the server keeps them sealed.
 */
export function useCreateDiscussion() {
  const { applyChange, rooms } = useSessionServices();
  return useMutation({
    mutationFn: async (input: CreateDiscussionInput) => {
      const room = await rooms.create(input.title, input.display_name);
      return api.get(DISCUSSIONS_API.one(room.id), responseSchemas.discussion);
    },
    onSuccess: (details) => applyChange({ kind: "discussion.answered", details }),
  });
}

export function useJoinDiscussion(publicId: string) {
  const { applyChange } = useSessionServices();
  return useMutation({
    mutationFn: (displayName: string) =>
      api.post(DISCUSSIONS_API.join(publicId), { display_name: displayName }, responseSchemas.discussion),
    onSuccess: (details) => applyChange({ kind: "discussion.answered", details }),
  });
}

/** An encrypted discussion's title is sealed on this device (lib/sealing/rooms.ts); one in clear's is sent as typed. */
export function useRenameDiscussion(id: string, encrypted: boolean) {
  const { applyChange, rooms } = useSessionServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (title: string) => {
      if (!encrypted) return apiFetch(DISCUSSIONS_API.one(id), { method: "PATCH", body: { title }, answer: responseSchemas.discussion });
      await rooms.rename(id, title);
      reloadRoom(queryClient, id);
      return api.get(DISCUSSIONS_API.one(id), responseSchemas.discussion);
    },
    onSuccess: (details: DiscussionDetails) => applyChange({ kind: "discussion.answered", details }),
  });
}

export function useExtendDiscussion(id: string) {
  const { applyChange } = useSessionServices();
  return useMutation({
    mutationFn: (days: 7 | 30) => api.post(DISCUSSIONS_API.extend(id), { days }, responseSchemas.discussion),
    onSuccess: (details) => applyChange({ kind: "discussion.answered", details }),
  });
}

/** The owner ends it for everyone; a member leaves. Either way it is gone from this user's list. */
export function useCloseDiscussion(id: string, how: "end" | "leave") {
  const { applyChange } = useSessionServices();
  return useMutation({
    mutationFn: () =>
      how === "end" ? apiFetch(DISCUSSIONS_API.one(id), { method: "DELETE" }) : apiFetch(DISCUSSIONS_API.leave(id), { method: "POST" }),
    onSuccess: () => applyChange({ kind: "discussion.closed", id, reason: how === "end" ? "ended" : "left" }),
  });
}

export function useRemoveMember(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (memberId: string) => apiFetch(DISCUSSIONS_API.member(id, memberId), { method: "DELETE" }),
    // The live `discussion.upserted` may have come first: the count follows the list rather than going down twice.
    onSuccess: (_answer, memberId) =>
      queryClient.setQueryData<DiscussionDetails>(discussionsKey.one(id), (old) => {
        if (!old) return old;
        const members = old.members.filter((m) => m.id !== memberId);
        return { ...old, discussion: { ...old.discussion, member_count: members.length }, members };
      }),
  });
}

/** Everything up to now is read: the unread count drops to 0 here at once, and on the server. */
export async function markRead(queryClient: ReturnType<typeof useQueryClient>, id: string): Promise<void> {
  markDiscussionRead(queryClient, id);
  await apiFetch(DISCUSSIONS_API.read(id), { method: "POST" });
}

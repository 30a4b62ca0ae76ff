/**
 * What the pages read of an encrypted discussion (lib/sealing/rooms.ts): the room as this device holds it, a
 * discussion's details with its title and names opened, and its messages opened. The caches keep what the server
 * sent (empty titles and names, sealed texts); the opened values live only in the "room" and "opened-room" queries.
 */
import { type DiscussionDetails, type DiscussionMessage, type MemberChange, roomLiveEventSchema, SEALED_TEXT } from "@daysync/shared";
import { type QueryClient, useQueries, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { isNetworkError } from "../api-errors.ts";
import { useSessionServices } from "../session-services.ts";
import type { Shown } from "../shown.ts";
import { LOCKED_TITLE } from "./room-values.ts";
import type { RoomAnswer, RoomView } from "./rooms.ts";

export const roomKey = (id: string) => ["room", id] as const;

/** The room of a discussion as this device holds it (`{ encrypted: false }` for one in clear). */
export function useRoom(id: string, enabled = true) {
  const { rooms } = useSessionServices();
  return useQuery<RoomAnswer>({
    queryKey: roomKey(id),
    queryFn: () => rooms.sync(id),
    enabled,
    staleTime: 5_000,
    // Run offline too: the room then opens from the state this device kept (Rooms.sync).
    networkMode: "always",
    // Offline with no kept state (or a discussion in clear) it says so at once rather than after retries.
    retry: (count, error) => !(error instanceof Error && "status" in error && error.status === 404) && !isNetworkError(error) && count < 2,
  });
}

/** Someone joined, left or a key moved: the room is read again (and rotated, when someone left). */
export function reloadRoom(queryClient: QueryClient, id: string): void {
  void queryClient.invalidateQueries({ queryKey: roomKey(id) });
}

/**
 * An encrypted discussion's live event (`roomLiveEventSchema`): it says what changed, the room or its requests are
 * read again (a leave makes this device rotate; a request to join shows on the open page at once).
 */
export function applyRoomEvent(queryClient: QueryClient, value: unknown): void {
  const parsed = roomLiveEventSchema.safeParse(value);
  if (!parsed.success) return;
  const event = parsed.data;
  if (event.kind === "discussion.join_requested" || event.kind === "discussion.join_updated") {
    void queryClient.invalidateQueries({ queryKey: roomRequestsKey(event.discussion_id) });
  } else {
    reloadRoom(queryClient, event.discussion_id);
  }
}

export const roomRequestsKey = (id: string) => ["room-requests", id] as const;

/** A discussion's details with the title and the members' names this device opened. */
export function openedDetails(details: DiscussionDetails, room: RoomView): DiscussionDetails {
  const nameOf = (memberId: string, fallback: string) => room.names.get(memberId) ?? fallback;
  const { discussion } = details;
  return {
    discussion: {
      ...discussion,
      title: room.title ?? LOCKED_TITLE,
      display_name: nameOf(discussion.member_id, discussion.display_name),
    },
    members: details.members.map((m) => ({ ...m, display_name: nameOf(m.id, m.display_name || "A member") })),
    member_changes: details.member_changes.map(
      (c): MemberChange => ({ ...c, display_name: nameOf(c.member_id, c.display_name || "A member") }),
    ),
  };
}

/** The title of a discussion of the sidebar: opened here when it is an encrypted one (its title in clear is empty). */
export function useOpenedTitle(id: string, title: string, encrypted?: boolean): string {
  const room = useRoom(id, encrypted === true || title === "");
  if (title !== "" && encrypted !== true) return title;
  return room.data?.encrypted ? (room.data.title ?? LOCKED_TITLE) : LOCKED_TITLE;
}

type Opened<T> = T & { shown: Shown; author?: { id: string; display_name: string } };

/**
 * A discussion's messages with those sealed under its room key opened on this device (a message in clear keeps what
 * `useOpenedMessages` showed), each by its sender's name as the room lists it.
 */
export function useOpenedRoomMessages<T extends DiscussionMessage & { shown: Shown }>(
  id: string,
  messages: readonly T[],
): readonly Opened<T>[] {
  const { rooms } = useSessionServices();
  const sealed = messages.some((m) => m.generation !== undefined);
  const room = useRoom(id, sealed);
  const view = room.data?.encrypted ? room.data : undefined;
  const held = view?.holding ? [...view.holding.generations.keys()].sort((a, b) => a - b).join(",") : "none";
  const results = useQueries({
    queries: messages.map((m) => ({
      queryKey: ["opened-room", id, m.id, m.generation ?? 0, held, m.content.length + m.filename.length, (m.preview ?? "").slice(-32)],
      queryFn: () => rooms.openMessage(id, m),
      enabled: m.generation !== undefined && view !== undefined,
      networkMode: "always" as const,
      staleTime: Number.POSITIVE_INFINITY,
      gcTime: 10 * 60_000,
      retry: false,
    })),
  });
  const highest = view?.holding?.highest ?? 0;
  // A message under a generation newer than this device holds: a rotation it has not taken yet.
  const behind = messages.some((m) => (m.generation ?? 0) > highest) && view?.holding !== undefined;
  useEffect(() => {
    if (behind) void room.refetch();
  }, [behind, room.refetch]);
  const shownKey = results
    .map((r) => (r.data ? (r.data.state === "opened" ? r.data.text : "locked") : r.error ? "error" : ""))
    .join("\u0000");
  // biome-ignore lint/correctness/useExhaustiveDependencies: `shownKey` stands for the results, which are a new array each render.
  return useMemo(
    () =>
      messages.map((m, i): Opened<T> => {
        if (m.generation === undefined) return m;
        const result = results[i];
        let shown: Shown = { kind: "opening" };
        if (result?.error) shown = { kind: "notice", text: result.error.message };
        else if (result?.data?.state === "opened") shown = { kind: "text", text: result.data.text };
        else if (result?.data?.state === "locked") shown = { kind: "notice", text: SEALED_TEXT.roomLocked };
        const name = view?.namesByKey.get(m.sender_key_id ?? "") ?? "A member";
        return { ...m, shown, author: { id: m.author.id, display_name: m.author.display_name || name } };
      }),
    [messages, shownKey, view],
  );
}

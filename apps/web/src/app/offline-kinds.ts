/** What the offline copy keeps of the features' caches (lib/offline-cache.ts), and what of it may still be shown. */

import { type DayMessagesResponse, responseSchemas, roomResponseSchemas, type User } from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import { dayMessagesKey } from "../features/chat/api/day-messages.ts";
import { discussionMessagesKey } from "../features/chat/api/discussion-messages.ts";
import { expiresAt } from "../features/chat/messages/expiry.ts";
import { daysKey } from "../features/dashboard/api/days.ts";
import { discussionsKey } from "../features/discussions/api/discussions-cache.ts";
import type { KeptKinds } from "../lib/offline-cache.ts";
import type { KeptRoomStates } from "../lib/sealing/rooms.ts";

const open = (ends_at: number, now: number) => ends_at > now;

/** The last state the server sent of each encrypted discussion (sealed values only), for a room opened offline. */
export const roomStateKey = (id: string) => ["room-state", id] as const;

export const keptRoomStates = (queryClient: QueryClient): KeptRoomStates => ({
  get: (id) => queryClient.getQueryData(roomStateKey(id)),
  set: (state) => queryClient.setQueryData(roomStateKey(state.id), state),
});

/**
 * The days, the most recent days' messages, the discussions, their messages and their rooms' states; never what has
 * expired or ended.
 */
export function keptKinds(user: User): KeptKinds {
  return {
    [daysKey[0]]: { schema: responseSchemas.days.shape.days },
    [dayMessagesKey.all[0]]: {
      schema: responseSchemas.dayMessages,
      max: 30,
      stillShown: (data: DayMessagesResponse, now: number) => ({
        ...data,
        messages: data.messages.filter((m) => (expiresAt(m, user.max_message_duration) ?? Number.POSITIVE_INFINITY) > now),
      }),
    },
    [discussionsKey.list[0]]: {
      schema: responseSchemas.discussions.shape.discussions,
      stillShown: (list: { ends_at: number }[], now: number) => list.filter((d) => open(d.ends_at, now)),
    },
    [discussionsKey.one("")[0]]: {
      schema: responseSchemas.discussion,
      stillShown: (data: { discussion: { ends_at: number } }, now: number) => (open(data.discussion.ends_at, now) ? data : undefined),
    },
    [roomStateKey("")[0]]: { schema: roomResponseSchemas.room, max: 30 },
    [discussionMessagesKey.all[0]]: {
      schema: responseSchemas.discussionMessages,
      stillShown: (data: { discussion: { ends_at: number } }, now: number) => (open(data.discussion.ends_at, now) ? data : undefined),
    },
  };
}

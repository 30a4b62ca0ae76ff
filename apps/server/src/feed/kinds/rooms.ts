/**
 * The kinds of change of an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"). Each says
 * what changed and nothing it holds (a device reads the room or the request over HTTP), so its ref is its event and
 * a replay needs no rows. Join requests reach who is logged them (the joiner is no member yet); the rest only a
 * reader of the discussion.
 */
import { type RoomLiveEvent, roomLiveEventSchema } from "@daysync/shared";
import { jsonRef } from "./day-messages.ts";
import type { ChangeOf } from "./kind.ts";
import { defineKind, nothingToLoad } from "./kind.ts";

type RoomKind = RoomLiveEvent["kind"];
type EventOf<K extends RoomKind> = Extract<RoomLiveEvent, { kind: K }>;

/** One room kind from the two ways between its change and its event. */
function roomKind<K extends RoomKind>(
  kind: K,
  access: "own" | "space",
  toEvent: (change: ChangeOf<K>) => EventOf<K>,
  toChange: (event: EventOf<K>) => ChangeOf<K>,
) {
  return defineKind<K, undefined, EventOf<K>>(kind, {
    ref(change) {
      const { kind: _kind, ...fields } = toEvent(change);
      return JSON.stringify(fields);
    },
    parse(ref) {
      const fields = jsonRef(ref);
      if (typeof fields !== "object" || fields === null) return undefined;
      const parsed = roomLiveEventSchema.safeParse({ ...fields, kind });
      return parsed.success && parsed.data.kind === kind ? toChange(parsed.data as EventOf<K>) : undefined;
    },
    access: access === "own" ? "own" : { space: (change) => (change as { discussionId: string }).discussionId },
    load: nothingToLoad,
    present: toEvent,
  });
}

export const roomKinds = {
  "discussion.join_requested": roomKind(
    "discussion.join_requested",
    "own",
    (c) => ({ kind: c.kind, discussion_id: c.discussionId, request_id: c.requestId }),
    (e) => ({ kind: e.kind, discussionId: e.discussion_id, requestId: e.request_id }),
  ),
  "discussion.join_updated": roomKind(
    "discussion.join_updated",
    "own",
    (c) => ({ kind: c.kind, discussion_id: c.discussionId, request_id: c.requestId, state: c.state }),
    (e) => ({ kind: e.kind, discussionId: e.discussion_id, requestId: e.request_id, state: e.state }),
  ),
  "discussion.member_joined": roomKind(
    "discussion.member_joined",
    "space",
    (c) => ({ kind: c.kind, discussion_id: c.discussionId, member_id: c.memberId, generation: c.generation, key_id: c.keyId }),
    (e) => ({ kind: e.kind, discussionId: e.discussion_id, memberId: e.member_id, generation: e.generation, keyId: e.key_id }),
  ),
  "discussion.member_left": roomKind(
    "discussion.member_left",
    "space",
    (c) => ({ kind: c.kind, discussion_id: c.discussionId, member_id: c.memberId, key_ids: c.keyIds }),
    (e) => ({ kind: e.kind, discussionId: e.discussion_id, memberId: e.member_id, keyIds: e.key_ids }),
  ),
  "discussion.rotated": roomKind(
    "discussion.rotated",
    "space",
    (c) => ({ kind: c.kind, discussion_id: c.discussionId, generation: c.generation, sender_key_id: c.senderKeyId }),
    (e) => ({ kind: e.kind, discussionId: e.discussion_id, generation: e.generation, senderKeyId: e.sender_key_id }),
  ),
};

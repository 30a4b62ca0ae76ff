/**
 * The kinds of change of a discussion, logged to every member. A replay serves them only to who may read the space
 * now: one who left or was removed gets its `discussion.closed` and nothing after.
 */
import { discussionClosedReasonSchema } from "@daysync/shared";
import { z } from "zod";
import type { MessagesTable } from "../../db/schema.ts";
import {
  type DiscussionRow,
  type MemberHistoryRow,
  type MemberRow,
  presentDiscussion,
  presentDiscussionMessage,
  presentMember,
  presentMemberChanges,
} from "../../presenters/discussion.presenter.ts";
import { jsonRef } from "./day-messages.ts";
import { defineKind, nothingToLoad } from "./kind.ts";

const closed = z.string().regex(/^.+:[a-z]+$/);
const deleted = z.object({ discussion_id: z.string(), ids: z.array(z.string()) });

interface UpsertedFacts {
  discussion: DiscussionRow;
  members: MemberRow[];
  history: MemberHistoryRow[];
}

const discussionUpserted = defineKind<"discussion.upserted", UpsertedFacts>("discussion.upserted", {
  ref: (change) => change.discussionId,
  parse: (ref, kind) => ({ kind, discussionId: ref }),
  access: { space: (change) => change.discussionId },
  async load(change, reads) {
    const discussion = await reads.discussion(change.discussionId);
    if (!discussion) return null;
    const [members, history] = await Promise.all([reads.members(change.discussionId), reads.memberHistory(change.discussionId)]);
    return { discussion, members, history };
  },
  present: (_change, { discussion, members, history }) => ({
    kind: "discussion.upserted",
    discussion: presentDiscussion(discussion),
    members: members.map(presentMember),
    member_changes: presentMemberChanges(history),
  }),
});

/** The space's rows may be gone by now: the change holds all this event says, and reaches who is out of it. */
const discussionClosed = defineKind("discussion.closed", {
  ref: (change) => `${change.discussionId}:${change.reason}`,
  parse(ref, kind) {
    if (!closed.safeParse(ref).success) return undefined;
    const at = ref.lastIndexOf(":");
    const reason = discussionClosedReasonSchema.safeParse(ref.slice(at + 1));
    return reason.success ? { kind, discussionId: ref.slice(0, at), reason: reason.data } : undefined;
  },
  access: "own",
  load: nothingToLoad,
  present: (change) => ({ kind: "discussion.closed", id: change.discussionId, reason: change.reason }),
});

interface MessageFacts {
  message: MessagesTable;
  author: { id: string; display_name: string };
  discussion: DiscussionRow;
}

const discussionMessageCreated = defineKind<"discussion.message.created", MessageFacts>("discussion.message.created", {
  ref: (change) => change.messageId,
  parse: (ref, kind) => ({ kind, messageId: ref }),
  access: { space: (_change, { message }) => message.space_id },
  async load(change, reads) {
    const row = await reads.message(change.messageId);
    if (!row) return null;
    const [message, discussion] = await Promise.all([reads.discussionMessage(row.space_id, row.id), reads.discussion(row.space_id)]);
    if (!message || !discussion) return null;
    return { message, author: { id: message.author_id, display_name: message.author_name }, discussion };
  },
  present: (_change, { message, author, discussion }) => ({
    kind: "discussion.message.created",
    message: presentDiscussionMessage(message, author),
    discussion: presentDiscussion(discussion),
  }),
});

const discussionMessagesDeleted = defineKind("discussion.messages.deleted", {
  ref: (change) => JSON.stringify({ discussion_id: change.discussionId, ids: change.ids }),
  parse(ref, kind) {
    const parsed = deleted.safeParse(jsonRef(ref));
    return parsed.success ? { kind, discussionId: parsed.data.discussion_id, ids: parsed.data.ids } : undefined;
  },
  access: { space: (change) => change.discussionId },
  load: nothingToLoad,
  present: (change) => ({ kind: "discussion.messages.deleted", discussion_id: change.discussionId, ids: change.ids }),
});

export const discussionKinds = {
  "discussion.upserted": discussionUpserted,
  "discussion.closed": discussionClosed,
  "discussion.message.created": discussionMessageCreated,
  "discussion.messages.deleted": discussionMessagesDeleted,
};

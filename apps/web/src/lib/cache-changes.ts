import type { DiscussionDetails, DiscussionMessage, LiveEvent } from "@daysync/shared";

/**
 * A change this tab learnt of: a live event, or the server's answer to one of this tab's own requests. Whoever
 * learns it (the live connection, the outbox, a feature) only describes it; app/ applies it with the cache
 * writers of every feature that shows it, so lib imports no feature and no feature imports another.
 */
export type CacheChange =
  | LiveEvent
  /** This tab's create, join, rename or extend, as the server answered it (with the caller's own fields). */
  | { kind: "discussion.answered"; details: DiscussionDetails }
  /** A message this tab sent to a discussion, as the server stored it. */
  | { kind: "discussion.message.sent"; message: DiscussionMessage }
  /** This tab deleted messages of the user's days (or found them expired); `clearedDayId` when it cleared a whole day. */
  | { kind: "day.messages.removed"; ids: readonly string[]; clearedDayId?: string }
  /** The server refused a deletion sent from here: the space's messages are loaded again. */
  | { kind: "deletion.refused"; discussionId?: string };

export type ApplyCacheChange = (change: CacheChange) => void;

/**
 * What the change log records: one typed value per kind of change, naming what changed (never its content, which a
 * replay reads again from the current rows). Stored as `kind` and a `ref` text column; this module is the only one
 * that knows how a ref is written, and it reads every ref back through a schema.
 */
import { type DiscussionClosedReason, discussionClosedReasonSchema, type LiveEvent } from "@daysync/shared";
import { z } from "zod";

export type ChangeKind = LiveEvent["kind"];

export type Change =
  | { kind: "day.upserted"; dayId: string }
  | { kind: "message.created"; messageId: string }
  /** `clearedDayId`: every message of that day went (Clear this day); known where it happens, not kept in the log. */
  | { kind: "messages.deleted"; ids: string[]; clearedDayId?: string }
  | { kind: "user.updated"; userId: string }
  | { kind: "device.signed_in" | "device.signed_out" | "device.renamed"; sessionId: string }
  | { kind: "discussion.upserted"; discussionId: string }
  | { kind: "discussion.closed"; discussionId: string; reason: DiscussionClosedReason }
  | { kind: "discussion.message.created"; messageId: string }
  | { kind: "discussion.messages.deleted"; discussionId: string; ids: string[] }
  | { kind: "key.epoch_created"; epoch: number }
  | { kind: "key.rotation_due"; epoch: number }
  | { kind: "key.start_over_changed"; userId: string }
  | { kind: "key.requested" | "key.request_updated"; requestId: string };

/** A change as the log holds it. */
export interface StoredChange {
  kind: ChangeKind;
  ref: string;
}

const ids = z.array(z.string());
const discussionDeleted = z.object({ discussion_id: z.string(), ids });
const closed = z.string().regex(/^.+:[a-z]+$/);
const epoch = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/)
  .transform(Number);

/** The ref of a change. The formats are those rows already written have, so old logs replay unchanged. */
export function refOf(change: Change): string {
  switch (change.kind) {
    case "day.upserted":
      return change.dayId;
    case "message.created":
    case "discussion.message.created":
      return change.messageId;
    case "messages.deleted":
      return JSON.stringify(change.ids);
    case "user.updated":
      return change.userId;
    case "device.signed_in":
    case "device.signed_out":
    case "device.renamed":
      return change.sessionId;
    case "discussion.upserted":
      return change.discussionId;
    case "discussion.closed":
      return `${change.discussionId}:${change.reason}`;
    case "discussion.messages.deleted":
      return JSON.stringify({ discussion_id: change.discussionId, ids: change.ids });
    case "key.epoch_created":
    case "key.rotation_due":
      return String(change.epoch);
    case "key.requested":
    case "key.request_updated":
      return change.requestId;
    case "key.start_over_changed":
      return change.userId;
  }
}

/** Reads a logged change back; undefined for a kind or ref this version cannot read (it is skipped, not served). */
export function changeOf(stored: { kind: string; ref: string }): Change | undefined {
  const { ref } = stored;
  const json = () => {
    try {
      return JSON.parse(ref) as unknown;
    } catch {
      return undefined;
    }
  };
  switch (stored.kind) {
    case "day.upserted":
      return { kind: stored.kind, dayId: ref };
    case "message.created":
    case "discussion.message.created":
      return { kind: stored.kind, messageId: ref };
    case "messages.deleted": {
      const parsed = ids.safeParse(json());
      return parsed.success ? { kind: stored.kind, ids: parsed.data } : undefined;
    }
    case "user.updated":
      return { kind: stored.kind, userId: ref };
    case "device.signed_in":
    case "device.signed_out":
    case "device.renamed":
      return { kind: stored.kind, sessionId: ref };
    case "discussion.upserted":
      return { kind: stored.kind, discussionId: ref };
    case "discussion.closed": {
      if (!closed.safeParse(ref).success) return undefined;
      const at = ref.lastIndexOf(":");
      const reason = discussionClosedReasonSchema.safeParse(ref.slice(at + 1));
      return reason.success ? { kind: stored.kind, discussionId: ref.slice(0, at), reason: reason.data } : undefined;
    }
    case "discussion.messages.deleted": {
      const parsed = discussionDeleted.safeParse(json());
      return parsed.success ? { kind: stored.kind, discussionId: parsed.data.discussion_id, ids: parsed.data.ids } : undefined;
    }
    case "key.epoch_created":
    case "key.rotation_due": {
      const parsed = epoch.safeParse(ref);
      return parsed.success ? { kind: stored.kind, epoch: parsed.data } : undefined;
    }
    case "key.requested":
    case "key.request_updated":
      return { kind: stored.kind, requestId: ref };
    case "key.start_over_changed":
      return { kind: stored.kind, userId: ref };
    default:
      return undefined;
  }
}

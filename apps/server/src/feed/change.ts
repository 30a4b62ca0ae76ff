/**
 * What the change log records: one typed value per kind of change, naming what changed (never its content, which a
 * replay reads again from the current rows). Stored as `kind` and a `ref` text column; how each kind writes and
 * reads its ref is part of its definition (`kinds/`).
 */
import type { DiscussionClosedReason, ServerLiveEvent as LiveEvent } from "@daysync/shared";

export type ChangeKind = LiveEvent["kind"];

export type Change =
  | { kind: "day.upserted"; dayId: string }
  | { kind: "message.created"; messageId: string }
  /** `clearedDayId`: every message of that day went (Clear this day); known where it happens, not kept in the log. */
  | { kind: "messages.deleted"; ids: string[]; clearedDayId?: string }
  | { kind: "user.updated"; userId: string }
  | { kind: "device.signed_in"; sessionId: string }
  | { kind: "device.signed_out"; sessionId: string }
  | { kind: "device.renamed"; sessionId: string }
  | { kind: "discussion.upserted"; discussionId: string }
  | { kind: "discussion.closed"; discussionId: string; reason: DiscussionClosedReason }
  | { kind: "discussion.message.created"; messageId: string }
  | { kind: "discussion.messages.deleted"; discussionId: string; ids: string[] }
  | { kind: "discussion.join_requested"; discussionId: string; requestId: string }
  | { kind: "discussion.join_updated"; discussionId: string; requestId: string; state: "answered" | "confirmed" | "admitted" | "refused" }
  | { kind: "discussion.member_joined"; discussionId: string; memberId: string; generation: number; keyId: string }
  | { kind: "discussion.member_left"; discussionId: string; memberId: string; keyIds: string[] }
  | { kind: "discussion.rotated"; discussionId: string; generation: number; senderKeyId: string }
  | { kind: "key.epoch_created"; epoch: number }
  | { kind: "key.rotation_due"; epoch: number }
  | { kind: "key.start_over_changed"; userId: string }
  | { kind: "key.requested"; requestId: string }
  | { kind: "key.request_updated"; requestId: string };

/** A change as the log holds it. */
export interface StoredChange {
  kind: ChangeKind;
  ref: string;
}

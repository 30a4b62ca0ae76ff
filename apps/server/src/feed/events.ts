/**
 * One presenter per kind of change: the live event a device gets, built from the rows the change is about. The
 * service that makes a change and the replay that reads it again later both build its event here, from the same
 * facts, so a device that resumes ends exactly where a device that was live through the change is.
 */
import type { LiveEvent, User } from "@daysync/shared";
import type { DateMessagesTable, KeyEpochsTable, MessagesTable } from "../db/schema.ts";
import { type DeviceRow, presentDevice } from "../presenters/devices.presenter.ts";
import {
  type DiscussionRow,
  type MemberHistoryRow,
  type MemberRow,
  presentDiscussion,
  presentDiscussionMessage,
  presentMember,
  presentMemberChanges,
} from "../presenters/discussion.presenter.ts";
import { type KeyRequestRow, presentKeyRequest } from "../presenters/key-requests.presenter.ts";
import { presentDay, presentMessage } from "../presenters/messages.presenter.ts";
import type { Change } from "./change.ts";

type Of<K extends LiveEvent["kind"]> = Extract<LiveEvent, { kind: K }>;

export const liveEvents = {
  dayUpserted: (day: DateMessagesTable): Of<"day.upserted"> => ({ kind: "day.upserted", day: presentDay(day) }),

  /** `day` is the message's day summary with the message counted in. */
  messageCreated: (message: MessagesTable, day: DateMessagesTable): Of<"message.created"> => ({
    kind: "message.created",
    message: presentMessage(message),
    day: presentDay(day),
  }),

  messagesDeleted: (change: Extract<Change, { kind: "messages.deleted" }>): Of<"messages.deleted"> => ({
    kind: "messages.deleted",
    ids: change.ids,
  }),

  userUpdated: (user: User): Of<"user.updated"> => ({ kind: "user.updated", user }),

  deviceSignedIn: (device: DeviceRow): Of<"device.signed_in"> => ({ kind: "device.signed_in", device: presentDevice(device) }),

  deviceSignedOut: (change: { sessionId: string }): Of<"device.signed_out"> => ({ kind: "device.signed_out", id: change.sessionId }),

  /** A rename carries the name the device has now. */
  deviceRenamed: (device: DeviceRow): Of<"device.renamed"> => ({ kind: "device.renamed", id: device.id, name: presentDevice(device).name }),

  discussionUpserted: (discussion: DiscussionRow, members: MemberRow[], history: MemberHistoryRow[]): Of<"discussion.upserted"> => ({
    kind: "discussion.upserted",
    discussion: presentDiscussion(discussion),
    members: members.map(presentMember),
    member_changes: presentMemberChanges(history),
  }),

  /** The space's rows may be gone by now: the change holds all this event says. */
  discussionClosed: (change: Extract<Change, { kind: "discussion.closed" }>): Of<"discussion.closed"> => ({
    kind: "discussion.closed",
    id: change.discussionId,
    reason: change.reason,
  }),

  discussionMessageCreated: (
    message: MessagesTable,
    author: { id: string; display_name: string },
    discussion: DiscussionRow,
  ): Of<"discussion.message.created"> => ({
    kind: "discussion.message.created",
    message: presentDiscussionMessage(message, author),
    discussion: presentDiscussion(discussion),
  }),

  discussionMessagesDeleted: (change: Extract<Change, { kind: "discussion.messages.deleted" }>): Of<"discussion.messages.deleted"> => ({
    kind: "discussion.messages.deleted",
    discussion_id: change.discussionId,
    ids: change.ids,
  }),

  keyEpochCreated: (row: Pick<KeyEpochsTable, "epoch" | "reason" | "created_by_session_id">): Of<"key.epoch_created"> => ({
    kind: "key.epoch_created",
    epoch: Number(row.epoch),
    reason: row.reason,
    session_id: row.created_by_session_id,
  }),

  keyRotationDue: (change: { epoch: number }): Of<"key.rotation_due"> => ({ kind: "key.rotation_due", epoch: change.epoch }),
  keyStartOverChanged: (): Of<"key.start_over_changed"> => ({ kind: "key.start_over_changed" }),
  keyRequested: (row: KeyRequestRow): Of<"key.requested"> => ({ kind: "key.requested", request: presentKeyRequest(row) }),

  keyRequestUpdated: (row: KeyRequestRow): Of<"key.request_updated"> => ({ kind: "key.request_updated", request: presentKeyRequest(row) }),
};

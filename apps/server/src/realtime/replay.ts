/**
 * Turns logged changes back into live events, reading the current state (expired or deleted rows are skipped), with
 * the presenter of each change kind that built the live event (`feed/events.ts`).
 */
import type { LiveEvent } from "@daysync/shared";
import { may } from "../access/policies.ts";
import type { DateMessagesTable } from "../db/schema.ts";
import type { Change } from "../feed/change.ts";
import { liveEvents } from "../feed/events.ts";
import type { UsersRepository } from "../modules/accounts/index.ts";
import { loadUser } from "../modules/accounts/index.ts";
import type { DevicesRepository } from "../modules/devices/index.ts";
import type { DiscussionMessagesRepository, DiscussionsRepository } from "../modules/discussions/index.ts";
import type { KeyRequestsRepository, KeysRepository } from "../modules/keys/index.ts";
import type { MessagesRepository } from "../modules/messages/index.ts";
import type { AccessRepository } from "../modules/spaces/index.ts";

/** Where a replay reads the current state of what a change refers to. */
export interface ReplayRepositories {
  messages: MessagesRepository;
  users: UsersRepository;
  devices: DevicesRepository;
  access: AccessRepository;
  discussions: DiscussionsRepository;
  discussionMessages: DiscussionMessagesRepository;
  keys: KeysRepository;
  keyRequests: KeyRequestsRepository;
}

/**
 * What one page of a replay reads once: the retention cut-off and each day's summary. Every replayed message
 * carries its day, and a day of thousands of messages would otherwise be summed up again for each of them.
 */
export interface ReplayReads {
  /** The time the page is read at (memberships are checked at it). */
  now: number;
  /** May the user read this space now (the policies, over their membership read once per page)? */
  mayRead(spaceId: string): Promise<boolean>;
  cutoff(): Promise<number | null>;
  day(dayId: string): Promise<DateMessagesTable | undefined>;
}

export function replayReads(repositories: Pick<ReplayRepositories, "messages" | "access">, userId: string, now: number): ReplayReads {
  const { messages, access } = repositories;
  let cutoff: Promise<number | null> | undefined;
  const days = new Map<string, Promise<DateMessagesTable | undefined>>();
  const readable = new Map<string, Promise<boolean>>();
  const reads: ReplayReads = {
    now,
    mayRead(spaceId) {
      let answer = readable.get(spaceId);
      if (!answer) {
        answer = access.membership(userId, spaceId, now).then((membership) => may({ userId }, "space.read", { membership }));
        readable.set(spaceId, answer);
      }
      return answer;
    },
    cutoff: () => {
      cutoff ??= messages.retentionCutoff(userId, now);
      return cutoff;
    },
    day(dayId) {
      let day = days.get(dayId);
      if (!day) {
        day = reads.cutoff().then(async (since) => {
          const [row] = await messages.liveDays(userId, since, [dayId]);
          return row;
        });
        days.set(dayId, day);
      }
      return day;
    },
  };
  return reads;
}

export async function eventOf(
  repositories: ReplayRepositories,
  userId: string,
  change: Change,
  reads: ReplayReads,
): Promise<LiveEvent | undefined> {
  const { messages, users, devices, discussions, discussionMessages, keys, keyRequests } = repositories;
  switch (change.kind) {
    case "day.upserted": {
      const day = await reads.day(change.dayId);
      return day && liveEvents.dayUpserted(day);
    }
    case "message.created": {
      const message = await messages.findMessage(change.messageId);
      if (!message || message.date_message_id === null || !(await reads.mayRead(message.space_id))) return undefined;
      const day = await reads.day(message.date_message_id);
      if (!day) return undefined;
      const since = await reads.cutoff();
      // Expired but not yet swept: the message is not served, its day's summary (without it) still is.
      if (since !== null && Number(message.created_at) < since) return liveEvents.dayUpserted(day);
      return liveEvents.messageCreated(message, day);
    }
    case "messages.deleted":
      return liveEvents.messagesDeleted(change);
    case "user.updated": {
      const user = await loadUser(users, userId);
      return user && liveEvents.userUpdated(user);
    }
    case "device.signed_out":
      return liveEvents.deviceSignedOut(change);
    // A device signed out since is skipped; a replayed rename carries the name the device has now.
    case "device.signed_in": {
      const row = await devices.find(userId, change.sessionId);
      return row && liveEvents.deviceSignedIn(row);
    }
    case "device.renamed": {
      const row = await devices.find(userId, change.sessionId);
      return row && liveEvents.deviceRenamed(row);
    }
    // A discussion's changes are replayed only to who is a member now: one who left or was removed gets nothing.
    case "discussion.message.created": {
      const message = await messages.findMessage(change.messageId);
      if (!message || !(await reads.mayRead(message.space_id))) return undefined;
      const [withAuthor, discussion] = await Promise.all([
        discussionMessages.find(message.space_id, message.id),
        discussions.find(message.space_id),
      ]);
      if (!withAuthor || !discussion) return undefined;
      return liveEvents.discussionMessageCreated(
        withAuthor,
        { id: withAuthor.author_id, display_name: withAuthor.author_name },
        discussion,
      );
    }
    case "discussion.messages.deleted":
      if (!(await reads.mayRead(change.discussionId))) return undefined;
      return liveEvents.discussionMessagesDeleted(change);
    case "discussion.upserted": {
      // Only while the viewer is still a member: the one who left since gets its `discussion.closed` instead.
      if (!(await reads.mayRead(change.discussionId))) return undefined;
      const row = await discussions.find(change.discussionId);
      if (!row) return undefined;
      const [members, history] = await Promise.all([
        discussions.members(change.discussionId),
        discussions.memberHistory(change.discussionId),
      ]);
      return liveEvents.discussionUpserted(row, members, history);
    }
    case "discussion.closed":
      return liveEvents.discussionClosed(change);
    case "key.epoch_created": {
      const row = await keys.epoch(userId, change.epoch);
      return row && liveEvents.keyEpochCreated(row);
    }
    case "key.rotation_due":
      return liveEvents.keyRotationDue(change);
    case "key.start_over_changed":
      return liveEvents.keyStartOverChanged();
    case "key.requested":
    case "key.request_updated": {
      // An expired request is never served again; a device drops it at its expires_at on its own.
      const row = await keyRequests.request(userId, change.requestId);
      if (!row || Number(row.expires_at) <= reads.now) return undefined;
      return change.kind === "key.requested" ? liveEvents.keyRequested(row) : liveEvents.keyRequestUpdated(row);
    }
  }
}

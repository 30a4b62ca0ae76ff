/** Turns logged changes back into live events, reading the current state (expired or deleted rows are skipped). */
import type { DateMessages, LiveEvent } from "@daysync/shared";
import { z } from "zod";
import type { ChangeRow } from "../events/changes.repository.ts";
import { loadUser } from "../modules/accounts/user.presenter.ts";
import type { UsersRepository } from "../modules/accounts/users.repository.ts";
import type { DevicesRepository } from "../modules/devices/devices.repository.ts";
import { deviceEventOf } from "../modules/devices/devices.service.ts";
import { presentDiscussion, presentDiscussionMessage } from "../modules/discussions/discussion.presenter.ts";
import type { DiscussionMessagesRepository } from "../modules/discussions/discussion-messages.repository.ts";
import type { DiscussionsRepository } from "../modules/discussions/discussions.repository.ts";
import { closedEventOf, upsertedEventOf } from "../modules/discussions/discussions.service.ts";
import { presentDay, presentMessage } from "../modules/messages/messages.presenter.ts";
import type { MessagesRepository } from "../modules/messages/messages.repository.ts";
import type { AccessRepository } from "../modules/spaces/access.repository.ts";

/** The refs of deletions hold the deleted ids (and, in a discussion, its id) as JSON: read back through a schema. */
const deletedIdsRef = z.array(z.string());
const discussionDeletedRef = z.object({ discussion_id: z.string(), ids: deletedIdsRef });

/** Where a replay reads the current state of what a change refers to. */
export interface ReplayRepositories {
  messages: MessagesRepository;
  users: UsersRepository;
  devices: DevicesRepository;
  access: AccessRepository;
  discussions: DiscussionsRepository;
  discussionMessages: DiscussionMessagesRepository;
}

/**
 * What one page of a replay reads once: the retention cut-off and each day's summary. Every replayed message
 * carries its day, and a day of thousands of messages would otherwise be summed up again for each of them.
 */
export interface ReplayReads {
  /** The time the page is read at (memberships are checked at it). */
  now: number;
  cutoff(): Promise<number | null>;
  day(dayId: string): Promise<DateMessages | undefined>;
}

export function replayReads(messages: MessagesRepository, userId: string, now: number): ReplayReads {
  let cutoff: Promise<number | null> | undefined;
  const days = new Map<string, Promise<DateMessages | undefined>>();
  const reads: ReplayReads = {
    now,
    cutoff: () => {
      cutoff ??= messages.retentionCutoff(userId, now);
      return cutoff;
    },
    day(dayId) {
      let day = days.get(dayId);
      if (!day) {
        day = reads.cutoff().then(async (since) => {
          const [row] = await messages.liveDays(userId, since, [dayId]);
          return row && presentDay(row);
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
  change: ChangeRow,
  reads: ReplayReads,
): Promise<LiveEvent | undefined> {
  const { messages, users, devices, access, discussions, discussionMessages } = repositories;
  switch (change.kind) {
    case "day.upserted": {
      const day = await reads.day(change.ref);
      return day && { kind: "day.upserted", day };
    }
    case "message.created": {
      const message = await messages.findMessage(change.ref);
      if (!message || message.space_id !== userId) return undefined;
      const day = await reads.day(message.date_message_id ?? "");
      if (!day) return undefined;
      const since = await reads.cutoff();
      // Expired but not yet swept: the message is not served, its day's summary (without it) still is.
      if (since !== null && Number(message.created_at) < since) return { kind: "day.upserted", day };
      return { kind: "message.created", message: presentMessage(message), day };
    }
    case "messages.deleted":
      return { kind: "messages.deleted", ids: deletedIdsRef.parse(JSON.parse(change.ref)) };
    case "user.updated": {
      const user = await loadUser(users, userId);
      return user && { kind: "user.updated", user };
    }
    case "device.signed_in":
    case "device.signed_out":
    case "device.renamed":
      return deviceEventOf(devices, userId, change);
    // A discussion's changes are replayed only to who is a member now: one who left or was removed gets nothing.
    case "discussion.message.created": {
      const message = await messages.findMessage(change.ref);
      if (!message || !(await access.membership(userId, message.space_id, reads.now))) return undefined;
      const [withAuthor, discussion] = await Promise.all([
        discussionMessages.find(message.space_id, message.id),
        discussions.find(message.space_id),
      ]);
      if (!withAuthor || !discussion) return undefined;
      return {
        kind: "discussion.message.created",
        message: presentDiscussionMessage(withAuthor, { id: withAuthor.author_id, display_name: withAuthor.author_name }),
        discussion: presentDiscussion(discussion),
      };
    }
    case "discussion.messages.deleted": {
      const { discussion_id, ids } = discussionDeletedRef.parse(JSON.parse(change.ref));
      if (!(await access.membership(userId, discussion_id, reads.now))) return undefined;
      return { kind: "discussion.messages.deleted", discussion_id, ids };
    }
    case "discussion.upserted": {
      // Only while the viewer is still a member: the one who left since gets its `discussion.closed` instead.
      const membership = await access.membership(userId, change.ref, reads.now);
      if (membership?.kind !== "discussion") return undefined;
      return upsertedEventOf(discussions, change.ref);
    }
    case "discussion.closed":
      // The space's rows may be gone: the ref holds all the event says.
      return closedEventOf(change.ref);
  }
}

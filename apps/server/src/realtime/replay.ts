/**
 * What a replay reads of the current state (`ReplayReads`, which each kind of change asks in `feed/kinds/`),
 * answered from the modules' repositories for one user and one page.
 */
import { may } from "../access/policies.ts";
import type { DateMessagesTable } from "../db/schema.ts";
import type { ReplayReads } from "../feed/kinds/index.ts";
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
 * The reads of one page of a replay. The retention cut-off, each day's summary and each space's answer are read once:
 * every replayed message carries its day, and a day of thousands of messages would otherwise be summed up again for
 * each of them.
 */
export function replayReads(repositories: ReplayRepositories, userId: string, now: number): ReplayReads {
  const { messages, access, users, devices, discussions, discussionMessages, keys, keyRequests } = repositories;
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
    message: (id) => messages.findMessage(id),
    user: () => loadUser(users, userId),
    device: (sessionId) => devices.find(userId, sessionId),
    discussion: (spaceId) => discussions.find(spaceId),
    discussionMessage: (spaceId, messageId) => discussionMessages.find(spaceId, messageId),
    members: (spaceId) => discussions.members(spaceId),
    memberHistory: (spaceId) => discussions.memberHistory(spaceId),
    keyEpoch: (epoch) => keys.epoch(userId, epoch),
    keyRequest: (requestId) => keyRequests.request(userId, requestId),
  };
  return reads;
}

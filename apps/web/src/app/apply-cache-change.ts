/**
 * Where a change (a live event, or the answer to this tab's own request) meets the caches: each feature owns its
 * query keys and cache writers, and this switch calls those of every feature that shows the change.
 */
import type { QueryClient } from "@tanstack/react-query";
import {
  addDayMessage,
  reloadDayMessages,
  removeDayMessages,
  renameDeviceInDayMessages,
  setMessagesDay,
} from "../features/chat/api/day-messages.ts";
import {
  addDiscussionMessage,
  dropDiscussionMessages,
  reloadDiscussionMessages,
  removeDiscussionMessages,
  updateDiscussionOfMessages,
} from "../features/chat/api/discussion-messages.ts";
import { reloadDays, upsertDay } from "../features/dashboard/api/days.ts";
import { removeFromSearch, renameDeviceInSearch, staleSearchCorpus } from "../features/dashboard/api/search.ts";
import { reloadDevices } from "../features/devices/api/devices.ts";
import {
  closeDiscussion,
  noteDiscussionMessage,
  setDiscussionDetails,
  upsertDiscussion,
} from "../features/discussions/api/discussions-cache.ts";
import type { CacheChange } from "../lib/cache-changes.ts";
import { setMe } from "../lib/session.ts";

export function applyCacheChange(queryClient: QueryClient, change: CacheChange): void {
  switch (change.kind) {
    case "day.upserted":
      upsertDay(queryClient, change.day);
      setMessagesDay(queryClient, change.day);
      break;
    case "message.created":
      upsertDay(queryClient, change.day);
      staleSearchCorpus(queryClient);
      addDayMessage(queryClient, change.message, change.day);
      break;
    case "messages.deleted":
      removeDayMessages(queryClient, change.ids);
      removeFromSearch(queryClient, change.ids);
      break;
    case "day.messages.removed":
      removeDayMessages(queryClient, change.ids);
      removeFromSearch(queryClient, change.ids);
      reloadDays(queryClient);
      if (change.clearedDayId) reloadDayMessages(queryClient, change.clearedDayId);
      break;
    case "deletion.refused":
      if (change.discussionId) reloadDiscussionMessages(queryClient);
      else reloadDayMessages(queryClient);
      break;
    case "user.updated":
      setMe(queryClient, change.user);
      break;
    case "device.signed_in":
    case "device.signed_out":
    case "key.epoch_created":
      reloadDevices(queryClient);
      break;
    case "device.renamed":
      renameDeviceInDayMessages(queryClient, change.id, change.name);
      renameDeviceInSearch(queryClient, change.id, change.name);
      reloadDevices(queryClient);
      break;
    case "discussion.answered":
      setDiscussionDetails(queryClient, change.details);
      updateDiscussionOfMessages(queryClient, change.details.discussion);
      break;
    case "discussion.upserted":
      upsertDiscussion(queryClient, change.discussion, change.members, change.member_changes);
      updateDiscussionOfMessages(queryClient, change.discussion);
      break;
    case "discussion.closed":
      closeDiscussion(queryClient, change.id, change.reason);
      dropDiscussionMessages(queryClient, change.id);
      break;
    case "discussion.message.created":
    case "discussion.message.sent":
      addDiscussionMessage(queryClient, change.message);
      noteDiscussionMessage(queryClient, change.message, change.kind === "discussion.message.created" ? change.discussion : undefined);
      break;
    case "discussion.messages.deleted":
      removeDiscussionMessages(queryClient, change.discussion_id, change.ids);
      break;
  }
}

/**
 * Every kind of change this tab learns of (a live event, or the answer to one of its own requests), each with what
 * it does here: the cache writers of every feature that shows it, and the session's services it wakes (the
 * device's keys). One entry per kind: a kind added to `CacheChange` without one fails the typecheck.
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
import { putKeyRequest, reloadKeysState } from "../features/keys/api/keys-cache.ts";
import type { CacheChange } from "../lib/cache-changes.ts";
import type { DeviceKeys } from "../lib/sealing/device-keys.ts";
import { reloadRoom } from "../lib/sealing/room-hooks.ts";
import { setMe } from "../lib/session.ts";

/** What a change acts on in this tab. */
export interface ChangeTargets {
  queryClient: QueryClient;
  keys: Pick<DeviceKeys, "refresh">;
}

type Kind = CacheChange["kind"];
type Effect<K extends Kind> = (change: Extract<CacheChange, { kind: K }>, to: ChangeTargets) => void;

const changeKinds: { [K in Kind]: Effect<K> } = {
  "day.upserted": (change, { queryClient }) => {
    upsertDay(queryClient, change.day);
    setMessagesDay(queryClient, change.day);
  },
  "message.created": (change, { queryClient }) => {
    upsertDay(queryClient, change.day);
    staleSearchCorpus(queryClient);
    addDayMessage(queryClient, change.message, change.day);
  },
  "messages.deleted": (change, { queryClient }) => {
    removeDayMessages(queryClient, change.ids);
    removeFromSearch(queryClient, change.ids);
  },
  "day.messages.removed": (change, { queryClient }) => {
    removeDayMessages(queryClient, change.ids);
    removeFromSearch(queryClient, change.ids);
    reloadDays(queryClient);
    if (change.clearedDayId) reloadDayMessages(queryClient, change.clearedDayId);
  },
  "deletion.refused": (change, { queryClient }) => {
    if (change.discussionId) reloadDiscussionMessages(queryClient);
    else reloadDayMessages(queryClient);
  },
  "user.updated": (change, { queryClient }) => setMe(queryClient, change.user),
  "device.signed_in": (_change, { queryClient }) => reloadDevices(queryClient),
  "device.signed_out": (_change, { queryClient }) => {
    reloadDevices(queryClient);
    reloadKeysState(queryClient);
  },
  "device.renamed": (change, { queryClient }) => {
    renameDeviceInDayMessages(queryClient, change.id, change.name);
    renameDeviceInSearch(queryClient, change.id, change.name);
    reloadDevices(queryClient);
  },
  "discussion.answered": (change, { queryClient }) => {
    setDiscussionDetails(queryClient, change.details);
    updateDiscussionOfMessages(queryClient, change.details.discussion);
  },
  "discussion.upserted": (change, { queryClient }) => {
    upsertDiscussion(queryClient, change.discussion, change.members, change.member_changes);
    updateDiscussionOfMessages(queryClient, change.discussion);
    // An encrypted discussion's members or title changed: its room is read again (a leave makes a device rotate).
    reloadRoom(queryClient, change.discussion.id);
  },
  "discussion.closed": (change, { queryClient }) => {
    closeDiscussion(queryClient, change.id, change.reason);
    dropDiscussionMessages(queryClient, change.id);
  },
  "discussion.message.created": (change, { queryClient }) => {
    addDiscussionMessage(queryClient, change.message);
    noteDiscussionMessage(queryClient, change.message, change.discussion);
  },
  "discussion.message.sent": (change, { queryClient }) => {
    addDiscussionMessage(queryClient, change.message);
    noteDiscussionMessage(queryClient, change.message, undefined);
  },
  "discussion.messages.deleted": (change, { queryClient }) => removeDiscussionMessages(queryClient, change.discussion_id, change.ids),
  // A new epoch, or one due (this device may make it): the keys are read again before what is sealed under it arrives.
  "key.epoch_created": (_change, { queryClient, keys }) => {
    void keys.refresh();
    reloadDevices(queryClient);
    reloadKeysState(queryClient);
  },
  "key.rotation_due": (_change, { keys }) => void keys.refresh(),
  "key.start_over_changed": (_change, { queryClient }) => reloadKeysState(queryClient),
  "key.requested": (change, { queryClient }) => putKeyRequest(queryClient, change.request),
  "key.request_updated": (change, { queryClient }) => {
    putKeyRequest(queryClient, change.request);
    reloadKeysState(queryClient);
  },
};

/** Applies a change with its kind's entry. */
export function applyChange(change: CacheChange, to: ChangeTargets): void {
  (changeKinds[change.kind] as Effect<Kind>)(change, to);
}

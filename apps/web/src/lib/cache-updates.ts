/** Applies changes (live events, confirmed sends) to the React Query cache. */
import { type DateMessages, type DayMessagesResponse, dayKeyOf, type Message, type SearchResponse, type User } from "@daysync/shared";
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import { queryKeys } from "./query-keys.ts";

function sortKey(day: DateMessages): string {
  try {
    return dayKeyOf(day.date);
  } catch {
    return "";
  }
}

/** Newest calendar day first; two records of one date (never expected) by creation time. */
export function sortDays(days: DateMessages[]): DateMessages[] {
  return [...days].sort((a, b) => {
    const ka = sortKey(a);
    const kb = sortKey(b);
    if (ka !== kb) return ka < kb ? 1 : -1;
    return b.timestamps - a.timestamps;
  });
}

function sortMessages(messages: Message[]): Message[] {
  return [...messages].sort((a, b) => a.timestamps - b.timestamps);
}

/**
 * A fetch in flight started before this change and would overwrite it with older data,
 * so it is restarted instead.
 */
function refetchIfInFlight(queryClient: QueryClient, queryKey: QueryKey): void {
  if (queryClient.getQueryState(queryKey)?.fetchStatus === "fetching") {
    void queryClient.invalidateQueries({ queryKey, exact: true });
  }
}

export function upsertDay(queryClient: QueryClient, day: DateMessages): void {
  queryClient.setQueryData<DateMessages[]>(queryKeys.days, (old) => (old ? sortDays([day, ...old.filter((d) => d.id !== day.id)]) : old));
  refetchIfInFlight(queryClient, queryKeys.days);
  const key = queryKeys.dayMessages(day.id);
  queryClient.setQueryData<DayMessagesResponse>(key, (old) => (old ? { ...old, day } : old));
}

export function addMessage(queryClient: QueryClient, message: Message): void {
  const key = queryKeys.dayMessages(message.date_message_id);
  queryClient.setQueryData<DayMessagesResponse>(key, (old) => {
    if (!old) return old;
    const others = old.messages.filter((m) => m.id !== message.id);
    return { ...old, messages: sortMessages([...others, message]) };
  });
  refetchIfInFlight(queryClient, key);
}

/** A stored message with its day (our own send, or a live `message.created`): also seeds the day's list when this message created the day, so nothing flickers. */
export function applySavedMessage(queryClient: QueryClient, message: Message, day: DateMessages): void {
  const key = queryKeys.dayMessages(day.id);
  if (queryClient.getQueryData(key) === undefined && day.count_messages === 1) {
    queryClient.setQueryData<DayMessagesResponse>(key, { day, messages: [message] });
  }
  upsertDay(queryClient, day);
  addMessage(queryClient, message);
}

export function removeMessages(queryClient: QueryClient, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  queryClient.setQueriesData<DayMessagesResponse>({ queryKey: queryKeys.dayMessagesAll }, (old) =>
    old?.messages.some((m) => gone.has(m.id)) ? { ...old, messages: old.messages.filter((m) => !gone.has(m.id)) } : old,
  );
  queryClient.setQueriesData<SearchResponse>({ queryKey: queryKeys.searchAll }, (old) =>
    old?.results.some((r) => gone.has(r.message.id)) ? { results: old.results.filter((r) => !gone.has(r.message.id)) } : old,
  );
}

/** A device got a new name: the messages it sent show it (the devices list is refetched by the caller). */
export function renameDevice(queryClient: QueryClient, deviceId: string, name: string): void {
  const rename = (m: Message) => (m.device?.id === deviceId ? { ...m, device: { id: deviceId, name } } : m);
  const sentBy = (m: Message) => m.device?.id === deviceId;
  queryClient.setQueriesData<DayMessagesResponse>({ queryKey: queryKeys.dayMessagesAll }, (old) =>
    old?.messages.some(sentBy) ? { ...old, messages: old.messages.map(rename) } : old,
  );
  queryClient.setQueriesData<SearchResponse>({ queryKey: queryKeys.searchAll }, (old) =>
    old?.results.some((r) => sentBy(r.message)) ? { results: old.results.map((r) => ({ ...r, message: rename(r.message) })) } : old,
  );
}

export function setUser(queryClient: QueryClient, user: User): void {
  queryClient.setQueryData<User | null>(queryKeys.me, user);
}

/** A day's messages: the query, its key and the writers that keep it current (app/ applies changes through them). */
import { API, type DateMessages, type DayMessagesResponse, type Message, responseSchemas } from "@daysync/shared";
import { type QueryClient, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { refetchIfInFlight } from "../../../lib/query-client.ts";
import { useOpenedMessages } from "../../../lib/sealing/opened-messages.ts";

export const dayMessagesKey = {
  all: ["day-messages"] as const,
  of: (dayId: string) => ["day-messages", dayId] as const,
};

/** A day's live messages, oldest first; no request for a day without a record yet. */
export function useDayMessages(dayId: string | null | undefined) {
  return useQuery({
    queryKey: dayMessagesKey.of(dayId ?? ""),
    queryFn: ({ signal }) => api.get(API.dayMessages(dayId ?? ""), responseSchemas.dayMessages, signal),
    enabled: Boolean(dayId),
  });
}

const NO_MESSAGES: readonly Message[] = [];

/** A day's messages as its page shows them: the query (its cache holds them sealed) and its messages opened here. */
export function useOpenedDayMessages(dayId: string | null | undefined) {
  const query = useDayMessages(dayId);
  const messages = useOpenedMessages(query.data?.messages ?? NO_MESSAGES, true);
  return { query, messages };
}

function sortMessages(messages: Message[]): Message[] {
  return [...messages].sort((a, b) => a.timestamps - b.timestamps);
}

/** The day's summary shown above its messages. */
export function setMessagesDay(queryClient: QueryClient, day: DateMessages): void {
  queryClient.setQueryData<DayMessagesResponse>(dayMessagesKey.of(day.id), (old) => (old ? { ...old, day } : old));
}

/** A stored message with its day (our own send, or a live `message.created`); seeds the day's list when this message created the day, so nothing flickers. */
export function addDayMessage(queryClient: QueryClient, message: Message, day: DateMessages): void {
  const key = dayMessagesKey.of(day.id);
  if (queryClient.getQueryData(key) === undefined && day.count_messages === 1) {
    queryClient.setQueryData<DayMessagesResponse>(key, { day, messages: [message] });
  }
  setMessagesDay(queryClient, day);
  const messageKey = dayMessagesKey.of(message.date_message_id);
  queryClient.setQueryData<DayMessagesResponse>(messageKey, (old) => {
    if (!old) return old;
    const others = old.messages.filter((m) => m.id !== message.id);
    return { ...old, messages: sortMessages([...others, message]) };
  });
  refetchIfInFlight(queryClient, messageKey);
}

export function removeDayMessages(queryClient: QueryClient, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  queryClient.setQueriesData<DayMessagesResponse>({ queryKey: dayMessagesKey.all }, (old) =>
    old?.messages.some((m) => gone.has(m.id)) ? { ...old, messages: old.messages.filter((m) => !gone.has(m.id)) } : old,
  );
}

/** A device got a new name: the messages it sent show it. */
export function renameDeviceInDayMessages(queryClient: QueryClient, deviceId: string, name: string): void {
  const sentBy = (m: Message) => m.device?.id === deviceId;
  queryClient.setQueriesData<DayMessagesResponse>({ queryKey: dayMessagesKey.all }, (old) =>
    old?.messages.some(sentBy)
      ? { ...old, messages: old.messages.map((m) => (sentBy(m) ? { ...m, device: { id: deviceId, name } } : m)) }
      : old,
  );
}

/** What is shown of the day may be wrong (a refused deletion, a cleared day): load it again. */
export function reloadDayMessages(queryClient: QueryClient, dayId?: string): void {
  void queryClient.invalidateQueries({ queryKey: dayId ? dayMessagesKey.of(dayId) : dayMessagesKey.all });
}

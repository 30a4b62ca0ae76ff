/** The user's days (the sidebar's day list): the query, its key and the writers that keep it current. */
import { API, type DateMessages, dayKeyOf, responseSchemas } from "@daysync/shared";
import { type QueryClient, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { refetchIfInFlight } from "../../../lib/query-client.ts";
import { type OpenedDay, useOpenedDays } from "../../../lib/sealing/opened-messages.ts";

export const daysKey = ["days"] as const;

function sortKey(day: DateMessages): string {
  try {
    return dayKeyOf(day.date);
  } catch {
    return "";
  }
}

/** Newest calendar day first; two records of one date (never expected) by creation time. */
function sortDays(days: DateMessages[]): DateMessages[] {
  return [...days].sort((a, b) => {
    const ka = sortKey(a);
    const kb = sortKey(b);
    if (ka !== kb) return ka < kb ? 1 : -1;
    return b.timestamps - a.timestamps;
  });
}

/** The user's day records, newest first; kept current by the live connection. */
export function useDays() {
  return useQuery({
    queryKey: daysKey,
    queryFn: async ({ signal }) => sortDays((await api.get(API.days, responseSchemas.days, signal)).days),
  });
}

/** A day as the day list shows it: its `preview` line (its newest message) opened on this device. */
export type ShownDay = OpenedDay<DateMessages>;

const NO_DAYS: readonly DateMessages[] = [];

/** The user's days as the day list shows them: the query (its cache holds them sealed) and the days opened here. */
export function useShownDays() {
  const query = useDays();
  const days = useOpenedDays(query.data ?? NO_DAYS);
  return { query, days };
}

export function upsertDay(queryClient: QueryClient, day: DateMessages): void {
  queryClient.setQueryData<DateMessages[]>(daysKey, (old) => (old ? sortDays([day, ...old.filter((d) => d.id !== day.id)]) : old));
  refetchIfInFlight(queryClient, daysKey);
}

/** Messages were deleted from here: the days' counts are the server's to say. */
export function reloadDays(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: daysKey });
}

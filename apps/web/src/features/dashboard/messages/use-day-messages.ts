import { API } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import type { DayMessagesResponse } from "../../../lib/api-types.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** A day's live messages, oldest first; no request for a day without a record yet. */
export function useDayMessages(dayId: string | null | undefined) {
  return useQuery({
    queryKey: queryKeys.dayMessages(dayId ?? ""),
    queryFn: ({ signal }) => api.get<DayMessagesResponse>(API.dayMessages(dayId ?? ""), signal),
    enabled: Boolean(dayId),
  });
}

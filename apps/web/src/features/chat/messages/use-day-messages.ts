import { API, responseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** A day's live messages, oldest first; no request for a day without a record yet. */
export function useDayMessages(dayId: string | null | undefined) {
  return useQuery({
    queryKey: queryKeys.dayMessages(dayId ?? ""),
    queryFn: ({ signal }) => api.get(API.dayMessages(dayId ?? ""), responseSchemas.dayMessages, signal),
    enabled: Boolean(dayId),
  });
}

import { API, responseSchemas } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { sortDays } from "../../../lib/cache-updates.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** The user's day records, newest first; kept current by the live connection. */
export function useDays() {
  return useQuery({
    queryKey: queryKeys.days,
    queryFn: async ({ signal }) => sortDays((await api.get(API.days, responseSchemas.days, signal)).days),
  });
}

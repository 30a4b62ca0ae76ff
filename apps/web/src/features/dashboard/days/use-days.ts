import { API } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import type { DaysResponse } from "../../../lib/api-types.ts";
import { sortDays } from "../../../lib/cache-updates.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** The user's day records, newest first; kept current by the live connection. */
export function useDays() {
  return useQuery({
    queryKey: queryKeys.days,
    queryFn: async ({ signal }) => sortDays((await api.get<DaysResponse>(API.days, signal)).days),
  });
}

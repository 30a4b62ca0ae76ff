import { API } from "@daysync/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import type { SearchResponse } from "../../../lib/api-types.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** Live messages whose text contains q, newest first. */
export function useSearch(q: string) {
  return useQuery({
    queryKey: queryKeys.search(q),
    queryFn: async ({ signal }) => (await api.get<SearchResponse>(`${API.search}?${new URLSearchParams({ q })}`, signal)).results,
    enabled: q.length > 0,
    staleTime: 5_000,
    placeholderData: keepPreviousData,
  });
}

import { API, responseSchemas } from "@daysync/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { queryKeys } from "../../../lib/query-keys.ts";

/** Live messages whose text contains q, newest first. */
export function useSearch(q: string) {
  return useQuery({
    queryKey: queryKeys.search(q),
    queryFn: async ({ signal }) => (await api.get(`${API.search}?${new URLSearchParams({ q })}`, responseSchemas.search, signal)).results,
    enabled: q.length > 0,
    staleTime: 5_000,
    placeholderData: keepPreviousData,
  });
}

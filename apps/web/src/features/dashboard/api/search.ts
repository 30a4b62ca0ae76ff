/** Search results: the query, its key and the writers that keep results current. */
import { API, type Message, responseSchemas, type SearchResponse } from "@daysync/shared";
import { keepPreviousData, type QueryClient, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

export const searchKey = {
  all: ["search"] as const,
  of: (q: string) => ["search", q] as const,
};

/** Live messages whose text contains q, newest first. */
export function useSearch(q: string) {
  return useQuery({
    queryKey: searchKey.of(q),
    queryFn: async ({ signal }) => (await api.get(`${API.search}?${new URLSearchParams({ q })}`, responseSchemas.search, signal)).results,
    enabled: q.length > 0,
    staleTime: 5_000,
    placeholderData: keepPreviousData,
  });
}

export function removeFromSearch(queryClient: QueryClient, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  queryClient.setQueriesData<SearchResponse>({ queryKey: searchKey.all }, (old) =>
    old?.results.some((r) => gone.has(r.message.id)) ? { results: old.results.filter((r) => !gone.has(r.message.id)) } : old,
  );
}

/** A device got a new name: the results it sent show it. */
export function renameDeviceInSearch(queryClient: QueryClient, deviceId: string, name: string): void {
  const sentBy = (m: Message) => m.device?.id === deviceId;
  const rename = (m: Message) => (sentBy(m) ? { ...m, device: { id: deviceId, name } } : m);
  queryClient.setQueriesData<SearchResponse>({ queryKey: searchKey.all }, (old) =>
    old?.results.some((r) => sentBy(r.message)) ? { results: old.results.map((r) => ({ ...r, message: rename(r.message) })) } : old,
  );
}

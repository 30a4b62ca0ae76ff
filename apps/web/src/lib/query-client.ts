import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { ApiError } from "./api-client.ts";

/** Client errors (4xx) will not change on retry; network and server errors may. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500 && error.status !== 429) return false;
  return failureCount < 2;
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: shouldRetry, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

/**
 * A fetch in flight started before a change just written to the cache and would overwrite it with older data,
 * so it is restarted instead.
 */
export function refetchIfInFlight(queryClient: QueryClient, queryKey: QueryKey): void {
  if (queryClient.getQueryState(queryKey)?.fetchStatus === "fetching") {
    void queryClient.invalidateQueries({ queryKey, exact: true });
  }
}

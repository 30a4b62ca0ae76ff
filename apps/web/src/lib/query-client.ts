import { onlineManager, QueryClient, type QueryKey } from "@tanstack/react-query";
import { ApiError } from "./api-client.ts";

/** Client errors (4xx) will not change on retry; network and server errors may. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500 && error.status !== 429) return false;
  return failureCount < 2;
}

// The query library learns of the network only from events: an offline start would try every query and fail
// it, where it should wait (paused) and show what the device kept until the connection is back.
if (typeof navigator !== "undefined") onlineManager.setOnline(navigator.onLine);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: shouldRetry, staleTime: 30_000 },
    // An action taken offline says so at once (sends wait in the outbox, not here) rather than spin until the network is back.
    mutations: { retry: false, networkMode: "always" },
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

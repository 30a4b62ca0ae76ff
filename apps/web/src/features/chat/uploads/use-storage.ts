import { API, responseSchemas, type StorageResponse } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { api } from "../../../lib/api-client.ts";

const STORAGE_KEY = ["storage"] as const;

/**
 * The account's storage as the server counts it, read fresh each time files are picked (another device may
 * have uploaded meanwhile), or offline the last reading. Undefined when it cannot be read: the server still
 * refuses what does not fit.
 */
export function useReadStorage(): () => Promise<StorageResponse | undefined> {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    // Offline, a query waits for the network: the pick must not.
    if (!navigator.onLine) return queryClient.getQueryData<StorageResponse>(STORAGE_KEY);
    return queryClient
      .fetchQuery({ queryKey: STORAGE_KEY, queryFn: () => api.get(API.storage, responseSchemas.storage), staleTime: 0 })
      .catch(() => undefined);
  }, [queryClient]);
}

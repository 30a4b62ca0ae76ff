/** The keys feature's caches, and the writers app/ applies live changes with (app/change-kinds.ts). */
import type { KeyRequest } from "@daysync/shared";
import type { QueryClient } from "@tanstack/react-query";
import { keysStateQuery } from "../../../lib/keys-state.ts";

/** The account's requests for the key, each at its latest step. */
export const keyRequestsKey = ["key-requests"] as const;

/** A request asked or moved on: put in place of what was known of it. */
export function putKeyRequest(queryClient: QueryClient, request: KeyRequest): void {
  queryClient.setQueryData<KeyRequest[]>(keyRequestsKey, (old = []) => [...old.filter((r) => r.id !== request.id), request]);
}

/** The key state (holders, a request to start over) is read again after a change of keys, devices or requests. */
export function reloadKeysState(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: keysStateQuery.queryKey });
}

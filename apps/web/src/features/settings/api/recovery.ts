/** The account's recovery code as Settings shows it (docs/protocol/encryption.md, "Recovery code"). */
import { KEYS_API, recoveryStateSchema } from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

export const recoveryKey = ["settings", "recovery"] as const;

export const recoveryQueryOptions = queryOptions({
  queryKey: recoveryKey,
  queryFn: ({ signal }) => api.get(KEYS_API.recovery, recoveryStateSchema, signal),
});

export const reloadRecovery = (queryClient: QueryClient) => void queryClient.invalidateQueries({ queryKey: recoveryKey });

import { API, type User } from "@daysync/shared";
import { queryOptions } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import type { SessionResponse } from "./api-types.ts";
import { queryKeys } from "./query-keys.ts";

/** The signed-in user, or null for a visitor. Kept current by the live connection's user.updated. */
export const meQueryOptions = queryOptions({
  queryKey: queryKeys.me,
  queryFn: async ({ signal }): Promise<User | null> => (await api.get<SessionResponse>(API.session, signal)).user,
  staleTime: Number.POSITIVE_INFINITY,
});

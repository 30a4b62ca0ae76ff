import { API, responseSchemas, type User } from "@daysync/shared";
import { queryOptions } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { queryKeys } from "./query-keys.ts";

/** The signed-in user, or null for a visitor. Kept current by the live connection's user.updated. */
export const meQueryOptions = queryOptions({
  queryKey: queryKeys.me,
  queryFn: async ({ signal }): Promise<User | null> => (await api.get(API.session, responseSchemas.session, signal)).user,
  staleTime: Number.POSITIVE_INFINITY,
});

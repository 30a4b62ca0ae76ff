import { API, type User } from "@daysync/shared";
import { queryOptions } from "@tanstack/react-query";
import { ApiError, api } from "./api-client.ts";
import type { UserResponse } from "./api-types.ts";
import { queryKeys } from "./query-keys.ts";

/** The signed-in user, or null for a visitor. Kept current by the live connection's user.updated. */
export const meQueryOptions = queryOptions({
  queryKey: queryKeys.me,
  queryFn: async ({ signal }): Promise<User | null> => {
    try {
      return (await api.get<UserResponse>(API.me, signal)).user;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  staleTime: Number.POSITIVE_INFINITY,
});

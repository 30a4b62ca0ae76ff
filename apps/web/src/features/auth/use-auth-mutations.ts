import { API, type LoginInput, type RegisterInput, responseSchemas, type User } from "@daysync/shared";
import { type QueryClient, useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../lib/api-client.ts";
import { queryKeys } from "../../lib/query-keys.ts";

/** A new session starts from an empty cache, so nothing of a previous user can show. */
function startSession(queryClient: QueryClient, user: User): void {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.me[0] });
  queryClient.setQueryData<User | null>(queryKeys.me, user);
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: LoginInput) => api.post(API.login, input, responseSchemas.user),
    onSuccess: ({ user }) => startSession(queryClient, user),
  });
}

export function useRegister() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: RegisterInput) => api.post(API.register, input, responseSchemas.user),
    onSuccess: ({ user }) => startSession(queryClient, user),
  });
}

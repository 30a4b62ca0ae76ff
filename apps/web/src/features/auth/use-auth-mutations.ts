import { API, type LoginInput, type RegisterInput, userResponseSchema } from "@daysync/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../lib/api-client.ts";
import { startSession } from "../../lib/session.ts";

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: LoginInput) => api.post(API.login, input, userResponseSchema),
    onSuccess: ({ user }) => startSession(queryClient, user, { newDevice: true }),
  });
}

export function useRegister() {
  const queryClient = useQueryClient();
  return useMutation({
    /** `invite`: the token of the invite link the page was opened with, where registration needs one. */
    mutationFn: (input: RegisterInput & { invite?: string }) => api.post(API.register, input, userResponseSchema),
    onSuccess: ({ user }) => startSession(queryClient, user),
  });
}

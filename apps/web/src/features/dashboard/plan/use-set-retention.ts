import { API, type RetentionChoice, responseSchemas } from "@daysync/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { setMe } from "../../../lib/session.ts";

/** PUT /api/me/retention: how long a Premium user's messages last. */
export function useSetRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (max_message_duration: RetentionChoice) => api.put(API.retention, { max_message_duration }, responseSchemas.user),
    onSuccess: ({ user }) => setMe(queryClient, user),
  });
}

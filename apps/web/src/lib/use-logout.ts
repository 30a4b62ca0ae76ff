import { API } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api } from "./api-client.ts";
import { forgetUser } from "./offline-cache.ts";
import { forgetKeys } from "./sealing/key-store.ts";
import { useSessionServices } from "./session-services.ts";

/** Signs out, leaves for the landing page, then forgets every cached answer of this user, in memory and on the device. */
export function useLogout(): () => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { live, outbox, user } = useSessionServices();
  return async () => {
    live.stop();
    outbox.stop();
    try {
      await api.post(API.logout);
    } catch {
      // The spec ignores sign-out errors: the visitor leaves either way.
    }
    // flushSync unmounts the dashboard before the cache empties, so no guard sees a missing session.
    await navigate("/", { replace: true, flushSync: true });
    queryClient.clear();
    forgetUser(user.id);
    await forgetKeys(user.id);
  };
}

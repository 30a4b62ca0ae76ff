import type { User } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo } from "react";
import { toast } from "react-toastify";
import { LiveConnection } from "../lib/live-connection.ts";
import { Outbox } from "../lib/outbox.ts";
import { queryKeys } from "../lib/query-keys.ts";
import { type SessionServices, SessionServicesContext } from "../lib/session-services.ts";
import { uploadQueueFor } from "../lib/upload-queue.ts";

/**
 * Creates this tab's live connection, outbox and upload queue for the signed-in user and stops them when the
 * user changes or the signed-in frame goes away (sign-out). Every feature below reads them with
 * useSessionServices(), so the chat can be shown in more than one place.
 */
export function SessionServicesProvider({ user, children }: { user: User; children: ReactNode }) {
  const queryClient = useQueryClient();
  const services = useMemo(() => {
    const outbox = new Outbox(user.id, queryClient);
    const live = new LiveConnection({
      userId: user.id,
      queryClient,
      onReady: () => void outbox.flush(),
      onSessionEnded: () => {
        toast.info("You were signed out on this device.");
        queryClient.setQueryData<User | null>(queryKeys.me, null);
      },
    });
    return { live, outbox, uploads: uploadQueueFor(user.id) };
  }, [user.id, queryClient]);
  useEffect(() => {
    services.outbox.start();
    services.live.start();
    return () => {
      services.live.stop();
      services.outbox.stop();
    };
  }, [services]);
  const value = useMemo<SessionServices>(() => ({ user, ...services }), [user, services]);
  return <SessionServicesContext.Provider value={value}>{children}</SessionServicesContext.Provider>;
}

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";
import { markRead, useMyDiscussions } from "./api/discussions.ts";

const subscribeVisibility = (listener: () => void) => {
  document.addEventListener("visibilitychange", listener);
  return () => document.removeEventListener("visibilitychange", listener);
};
const isVisible = () => document.visibilityState === "visible";

/**
 * While the discussion is open and the page visible, what arrives is read: its unread count goes back to 0 here
 * at once (so each new message asks once) and on the server.
 */
export function useMarkRead(id: string): void {
  const queryClient = useQueryClient();
  const unread = useMyDiscussions().data?.find((d) => d.id === id)?.unread ?? 0;
  const visible = useSyncExternalStore(subscribeVisibility, isVisible, () => true);
  useEffect(() => {
    if (visible && unread > 0) void markRead(queryClient, id).catch(() => {});
  }, [visible, unread, id, queryClient]);
}

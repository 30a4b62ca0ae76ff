import { PENDING_SHARE_MESSAGES, type ShareOutcome } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";
import { useSearchParams } from "react-router";
import { toast } from "react-toastify";
import { reloadAllButMe } from "../../lib/session.ts";
import { useSessionServices } from "../../lib/session-services.ts";

// One toast id: a share's outcome is said once, even when two paths report it.
const NOTICES: Record<ShareOutcome, () => void> = {
  saved: () => toast.success("Shared to today's messages.", { toastId: "share-outcome" }),
  queued: () => toast.info("You are offline: what you shared will be sent when the connection is back.", { toastId: "share-outcome" }),
  locked: () =>
    toast.info("What you shared is kept on this device until one of your other devices approves it.", { toastId: "share-outcome" }),
  failed: () => toast.error("Some of what you shared could not be saved. Try sharing it again.", { toastId: "share-outcome" }),
};

const isOutcome = (value: unknown): value is ShareOutcome => typeof value === "string" && value in NOTICES;

/** The service worker's share target lands on /dashboard?shared=…: say how it went, then drop the parameter. */
export function useShareOutcome(): void {
  const [params, setParams] = useSearchParams();
  const outcome = params.get("shared");
  useEffect(() => {
    if (!outcome) return;
    if (isOutcome(outcome)) NOTICES[outcome]();
    setParams(
      (p) => {
        p.delete("shared");
        return p;
      },
      { replace: true },
    );
  }, [outcome, setParams]);
}

/**
 * Signed in: has the service worker send what was shared while signed out, offline or before this device was
 * approved, once this device holds the account's key (the worker seals with it) and whenever the connection comes
 * back, and says how it went.
 */
export function usePendingShares(): void {
  const queryClient = useQueryClient();
  const { keys } = useSessionServices();
  const keyReady = useSyncExternalStore(keys.subscribe, () => keys.getStatus().state === "ready");
  useEffect(() => {
    if (!keyReady) return;
    const worker = navigator.serviceWorker;
    if (!worker) return;
    const onMessage = (event: MessageEvent<{ type?: string; outcome?: unknown }>) => {
      const { type, outcome } = event.data ?? {};
      if (type !== PENDING_SHARE_MESSAGES.outcome || !isOutcome(outcome)) return;
      NOTICES[outcome]();
      // The worker wrote behind this page's back, racing its first loads: load what is shown once more,
      // rather than count on the live connection alone.
      reloadAllButMe(queryClient);
    };
    const deliver = () =>
      void worker.ready.then((registration) => registration.active?.postMessage({ type: PENDING_SHARE_MESSAGES.deliver }));
    worker.addEventListener("message", onMessage);
    window.addEventListener("online", deliver);
    deliver();
    return () => {
      worker.removeEventListener("message", onMessage);
      window.removeEventListener("online", deliver);
    };
  }, [queryClient, keyReady]);
}

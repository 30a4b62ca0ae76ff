import { useEffect } from "react";
import { useSearchParams } from "react-router";
import { toast } from "react-toastify";

const NOTICES = {
  saved: () => toast.success("Shared to today's messages."),
  queued: () => toast.info("You are offline: what you shared will be sent when the connection is back."),
  failed: () => toast.error("Some of what you shared could not be saved. Try sharing it again."),
} as const;

/** The service worker's share target lands on /dashboard?shared=…: say how it went, then drop the parameter. */
export function useShareOutcome(): void {
  const [params, setParams] = useSearchParams();
  const outcome = params.get("shared");
  useEffect(() => {
    if (!outcome) return;
    if (outcome in NOTICES) NOTICES[outcome as keyof typeof NOTICES]();
    setParams(
      (p) => {
        p.delete("shared");
        return p;
      },
      { replace: true },
    );
  }, [outcome, setParams]);
}

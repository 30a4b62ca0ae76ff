import { API } from "@daysync/shared";
import { useEffect, useState } from "react";

export type SessionState = "unknown" | "signed-in" | "signed-out";

/**
 * Whether the visitor has a session, from one cheap GET /api/me (200 signed in, 401 not).
 * The site only needs a yes or no, so it does not load the dashboard's code for this.
 */
export function useSession(): SessionState {
  const [state, setState] = useState<SessionState>("unknown");
  useEffect(() => {
    const controller = new AbortController();
    fetch(API.me, { credentials: "same-origin", headers: { accept: "application/json" }, signal: controller.signal })
      .then((response) => setState(response.ok ? "signed-in" : "signed-out"))
      .catch(() => {
        if (!controller.signal.aborted) setState("signed-out");
      });
    return () => controller.abort();
  }, []);
  return state;
}

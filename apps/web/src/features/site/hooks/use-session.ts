import { API } from "@daysync/shared";
import { useEffect, useState } from "react";

export type SessionState = "unknown" | "signed-in" | "signed-out";

/**
 * Whether the visitor has a session, from one cheap GET /api/session (always 200; user or null).
 * The site only needs a yes or no, so it does not load the dashboard's code for this.
 */
export function useSession(): SessionState {
  const [state, setState] = useState<SessionState>("unknown");
  useEffect(() => {
    const controller = new AbortController();
    fetch(API.session, { credentials: "same-origin", headers: { accept: "application/json" }, signal: controller.signal })
      .then((response) => (response.ok ? (response.json() as Promise<{ user: unknown }>) : { user: null }))
      .then((body) => setState(body.user ? "signed-in" : "signed-out"))
      .catch(() => {
        if (!controller.signal.aborted) setState("signed-out");
      });
    return () => controller.abort();
  }, []);
  return state;
}

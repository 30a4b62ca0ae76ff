import type { User } from "@daysync/shared";
import { type ReactNode, useEffect, useRef } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { PageSpinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useMe } from "./use-me.ts";
import "./auth.css";

export interface ReturnState {
  from?: { pathname: string; search: string; hash: string };
  /** The email typed on the register form, carried to the sign-in form by "Sign in instead". */
  email?: string;
}

/** The email carried over from the register form, if any. */
export function carriedEmail(state: unknown): string | undefined {
  const email = (state as ReturnState | null)?.email;
  return typeof email === "string" ? email : undefined;
}

/** Pages sign-in may return to: only paths of this app, so a crafted state cannot send anyone elsewhere. */
const RETURNABLE = ["/dashboard", "/pair", "/discussions/", "/send", "/latest"];

/** The page that asked for sign-in, when it is one sign-in may return to. */
export function returnTarget(state: unknown): string | null {
  const from = (state as ReturnState | null)?.from;
  const pathname = from?.pathname;
  if (typeof pathname !== "string" || pathname.startsWith("//") || !RETURNABLE.some((p) => pathname.startsWith(p))) return null;
  return `${pathname}${from?.search ?? ""}${from?.hash ?? ""}`;
}

/** Where sign-in (or registration) should go: back to the page that asked for it, else `fallback`. */
export function returnPath(state: unknown, fallback = "/dashboard"): string {
  return returnTarget(state) ?? fallback;
}

/**
 * /login and /register: a visitor who is already signed in goes to the dashboard.
 * Decided once, on arrival; after a successful sign-in the page itself chooses where to go.
 * The form shows at once while the session is checked, so the page paints without a round trip.
 */
export function GuestOnlyRoute() {
  const me = useMe();
  const location = useLocation();
  const arrivedSignedIn = useRef<boolean | null>(null);
  if (arrivedSignedIn.current === null && !me.isPending) arrivedSignedIn.current = Boolean(me.data);
  if (arrivedSignedIn.current) return <Navigate to={returnPath(location.state)} replace />;
  return <Outlet />;
}

/** The dashboard: a visitor goes to /login and comes back here after signing in. */
export function RequireSession({ children }: { children: (user: User) => ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.data) return children(me.data);
  if (me.isPending) return <PageSpinner />;
  if (me.isError) return <SessionUnreachable error={me.error} retry={() => void me.refetch()} />;
  const state: ReturnState = { from: { pathname: location.pathname, search: location.search, hash: location.hash } };
  return <Navigate to="/login" replace state={state} />;
}

/** The session check failed (offline start, server down): Try again asks again, and so does the network coming back. */
export function SessionUnreachable({ error, retry }: { error: Error; retry: () => void }) {
  useEffect(() => {
    window.addEventListener("online", retry);
    return () => window.removeEventListener("online", retry);
  }, [retry]);
  return (
    <main className="session-error">
      <h1>Daysync is not reachable</h1>
      <p>{describeError(error)}</p>
      <button type="button" className="btn btn-primary" onClick={retry}>
        Try again
      </button>
    </main>
  );
}

import type { User } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { Navigate, useNavigate } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { useMe } from "../features/auth/use-me.ts";
import { JoinPage } from "../features/pairing/join-page.tsx";
import { startSession } from "../lib/session.ts";

/**
 * /pair/join/:code: the new device's side of Add a device. A device that is already signed in does not open
 * the code (it would use it up); it goes to its dashboard. Decided once, on arrival, as for /login.
 */
export function JoinRoute() {
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const arrivedSignedIn = useRef<boolean | null>(null);
  if (arrivedSignedIn.current === null && !me.isPending) arrivedSignedIn.current = Boolean(me.data);
  if (arrivedSignedIn.current === null) return <PageSpinner />;
  if (arrivedSignedIn.current) return <Navigate to="/dashboard" replace />;

  const onSignedIn = (user: User) => {
    // A new session starts from an empty cache, as after a password sign-in.
    startSession(queryClient, user, { newDevice: true });
    void navigate("/dashboard", { replace: true });
  };
  return <JoinPage onSignedIn={onSignedIn} />;
}

import type { User } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useLocation, useNavigate } from "react-router";
import { returnPath } from "../features/auth/session-routes.tsx";
import { PairingPanel } from "../features/pairing/pairing-panel.tsx";
import { startSession } from "../lib/session.ts";

/** The side panel of 'Sign in using connected device' on /login: pairing by QR code, then on into the app. */
export function ConnectedDevicePanel({ id, onClose }: { id: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const onSignedIn = (user: User) => {
    // A new session starts from an empty cache, as after a password sign-in.
    startSession(queryClient, user, { newDevice: true });
    void navigate(returnPath(location.state), { replace: true });
  };
  return <PairingPanel id={id} onClose={onClose} onSignedIn={onSignedIn} />;
}

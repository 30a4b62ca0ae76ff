/**
 * The new device's end of both pairing directions: the channel has answered its request, so on approval
 * exchange the token for this device's own session; anything else, or a failed exchange, is a failed login.
 */
import type { User } from "@daysync/shared";
import { exchangeLoginToken } from "./pairing-api.ts";
import type { SettledOutcome } from "./use-rotating-code.ts";

export type SignInPhase = { phase: "signing-in" } | { phase: "failed" };

export interface SignInCallbacks {
  onSignedIn: (user: User) => void;
  onFailed: () => void;
}

export async function signInIfApproved(
  outcome: SettledOutcome,
  request: { request_id: string; secret: string },
  setState: (state: SignInPhase) => void,
  active: () => boolean,
  callbacks: SignInCallbacks,
): Promise<void> {
  if (outcome.type !== "approved") {
    setState({ phase: "failed" });
    return callbacks.onFailed();
  }
  setState({ phase: "signing-in" });
  try {
    const { user } = await exchangeLoginToken({ request_id: request.request_id, secret: request.secret, token: outcome.token });
    if (active()) callbacks.onSignedIn(user);
  } catch {
    if (!active()) return;
    setState({ phase: "failed" });
    callbacks.onFailed();
  }
}

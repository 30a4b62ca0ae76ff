/**
 * The new device's end of both pairing directions: the channel has answered its request, so on approval
 * exchange the token for this device's own session; anything else, or a failed exchange, is a failed login.
 */
import type { User } from "@daysync/shared";
import { HANDOVER_TEXT } from "@daysync/shared";
import { toast } from "react-toastify";
import { type PairingKeys, takeHandover } from "../../lib/sealing/pairing-handover.ts";
import { type AskedPairing, acceptTypedHandover, type PairingRequester } from "../../lib/sealing/typed-pairing.ts";
import { exchangeLoginToken } from "./pairing-api.ts";
import type { SettledOutcome } from "./use-rotating-code.ts";

/** Signed in either way; a handover that does not check out leaves this device locked, and says so until dismissed. */
const warn = (text: string) => void toast.error(text, { autoClose: false });

export type SignInPhase = { phase: "signing-in" } | { phase: "failed" };

export interface SignInCallbacks {
  onSignedIn: (user: User) => void;
  onFailed: () => void;
}

export async function signInIfApproved(
  outcome: SettledOutcome,
  request: { request_id: string; secret: string; keys?: PairingKeys; typed?: PairingRequester<AskedPairing> },
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
    // Before the app starts this device's key sync, which then finds the pair and the epochs kept here. A typed
    // code's exchange hands over with its tag; a scanned QR code's with the link's secret.
    const typedExchange = outcome.exchange?.handover_confirmation ? outcome.exchange : undefined;
    if (request.typed && typedExchange) await acceptTypedHandover(request.typed, user.id, typedExchange, warn);
    else if (request.keys) await receiveKeys(user.id, request.keys, request.request_id);
    if (active()) callbacks.onSignedIn(user);
  } catch {
    if (!active()) return;
    setState({ phase: "failed" });
    callbacks.onFailed();
  }
}

/** Signed in either way; a handover that does not check out leaves this device locked, and says so until dismissed. */
async function receiveKeys(userId: string, keys: PairingKeys, requestId: string): Promise<void> {
  try {
    const outcome = await takeHandover(userId, keys, requestId);
    if (!outcome.ok && outcome.reason === "not_verified") warn(HANDOVER_TEXT.handoverNotVerified);
  } catch {
    // Offline or refused: the key sync at start makes this device's key, and it asks for approval.
  }
}

/**
 * The login side panel's life: ask for a pairing request, show its QR code, wait on the pairing channel,
 * ask for a new code shortly before the old one expires, and on approval exchange the token for a session.
 */
import { type PairingRequestCreated, pairLink, type User } from "@daysync/shared";
import { useRef } from "react";
import { type SignInPhase, signInIfApproved } from "./approved-sign-in.ts";
import { createPairingRequest } from "./pairing-api.ts";
import { waitForApproval } from "./pairing-channel.ts";
import { type RotatingCodeState, useRotatingCode } from "./use-rotating-code.ts";

/** A new code this long before the old one expires, so a scan in the last seconds still lands. */
const REFRESH_BEFORE_MS = 10_000;

export type PairingPanelState = RotatingCodeState<PairingRequestCreated, SignInPhase>;

export function usePairingPanel(onSignedIn: (user: User) => void, onFailed: () => void) {
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };
  return useRotatingCode<PairingRequestCreated, SignInPhase>({
    issue: createPairingRequest,
    linkFor: pairLink,
    renewAfter: (expiresIn) => Math.max(0, expiresIn - REFRESH_BEFORE_MS),
    listen: waitForApproval,
    onSettled: (outcome, request, setState, active) => void signInIfApproved(outcome, request, setState, active, callbacks.current),
  });
}

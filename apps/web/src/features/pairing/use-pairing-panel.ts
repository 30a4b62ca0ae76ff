/**
 * The login side panel's life: ask for a pairing request, show its QR code, wait on the pairing channel,
 * ask for a new code shortly before the old one expires, and on approval exchange the token for a session.
 */
import { type PairingRequestCreated, pairLink, type User } from "@daysync/shared";
import { makePairingSecret, pairingFragment } from "@daysync/shared/crypto";
import { useRef } from "react";
import { type SignInPhase, signInIfApproved } from "./approved-sign-in.ts";
import { newAskingKey, type PairingKeys } from "./key-handover.ts";
import { createPairingRequest } from "./pairing-api.ts";
import { waitForApproval } from "./pairing-channel.ts";
import { type RotatingCodeState, useRotatingCode } from "./use-rotating-code.ts";

/** A new code this long before the old one expires, so a scan in the last seconds still lands. */
const REFRESH_BEFORE_MS = 10_000;

type PanelRequest = PairingRequestCreated & { keys: PairingKeys };
export type PairingPanelState = RotatingCodeState<PanelRequest, SignInPhase>;

/** A request asked with this device's new key; the link's secret goes only into the QR code's fragment. */
async function issue(): Promise<PanelRequest> {
  const secret = makePairingSecret();
  const asking = await newAskingKey(secret);
  return { ...(await createPairingRequest(asking.body)), keys: { asking, secret } };
}

export function usePairingPanel(onSignedIn: (user: User) => void, onFailed: () => void) {
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };
  return useRotatingCode<PanelRequest, SignInPhase>({
    issue,
    linkFor: (origin, request) => pairLink(origin, request.code) + pairingFragment(request.keys.secret),
    renewAfter: (expiresIn) => Math.max(0, expiresIn - REFRESH_BEFORE_MS),
    listen: waitForApproval,
    onSettled: (outcome, request, setState, active) => void signInIfApproved(outcome, request, setState, active, callbacks.current),
  });
}

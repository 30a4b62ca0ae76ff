/**
 * The login side panel's life: ask for a pairing request, show its QR code, wait on the pairing channel,
 * ask for a new code shortly before the old one expires, and on approval exchange the token for a session.
 * The request carries a typed code's CPace share (typed-code.ts): the code under the QR, typed on the other device,
 * runs the exchange on the same channel and signs this device in holding the key.
 */
import { APPROVAL_TEXT, KEY_REQUEST_MAX_FAILURES, type PairingRequestCreated, pairLink, type User } from "@daysync/shared";
import { useRef, useState } from "react";
import { makePairingSecret, newAskingKey, type PairingKeys, pairingFragment } from "../../lib/sealing/pairing-handover.ts";
import { type PairingRequester, typedRequester } from "../../lib/sealing/typed-pairing.ts";
import { type SignInPhase, signInIfApproved } from "./approved-sign-in.ts";
import { type PairingOutcome, waitForApproval } from "./pairing-channel.ts";
import { type RotatingCodeState, useRotatingCode } from "./use-rotating-code.ts";

/** A new code this long before the old one expires, so a scan in the last seconds still lands. */
const REFRESH_BEFORE_MS = 10_000;

type PanelRequest = PairingRequestCreated & { keys: PairingKeys; typed: PairingRequester };
export type PairingPanelState = RotatingCodeState<PanelRequest, SignInPhase>;

/** A request asked with this device's new key and share; the link's secret goes only into the QR code's fragment. */
async function issue(): Promise<PanelRequest> {
  const secret = makePairingSecret();
  const asking = await newAskingKey(secret);
  const typed = await typedRequester(asking);
  return { ...(await typed.ask()), keys: { asking, secret }, typed };
}

export function usePairingPanel(onSignedIn: (user: User) => void, onFailed: () => void) {
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };
  // What the typed code's exchange says on this device: a wrong code typed, the code matched, or the end.
  const [notice, setNotice] = useState<string | undefined>();

  const listen = (request: PanelRequest, onOutcome: (outcome: PairingOutcome) => void) => {
    setNotice(undefined);
    return waitForApproval(request, onOutcome, (exchange) => {
      void request.typed.update(exchange).then((step) => {
        if (step.step === "show" && step.wrongCodes > 0)
          setNotice(APPROVAL_TEXT.wrongCodeTyped(KEY_REQUEST_MAX_FAILURES - step.wrongCodes));
        if (step.step === "confirmed") setNotice(APPROVAL_TEXT.waitingForHandover);
        if (step.step === "ended" || step.step === "refused") {
          setNotice(step.step === "refused" ? APPROVAL_TEXT.refused : APPROVAL_TEXT.endedWrongCodes);
          onOutcome({ type: "denied" });
        }
      });
    });
  };

  const rotating = useRotatingCode<PanelRequest, SignInPhase>({
    issue,
    linkFor: (origin, request) => pairLink(origin, request.code) + pairingFragment(request.keys.secret),
    renewAfter: (expiresIn) => Math.max(0, expiresIn - REFRESH_BEFORE_MS),
    listen,
    onSettled: (outcome, request, setState, active) => void signInIfApproved(outcome, request, setState, active, callbacks.current),
  });
  return { ...rotating, notice };
}

/**
 * The login side panel's life: ask for a pairing request, show its QR code, wait on the pairing channel,
 * ask for a new code shortly before the old one expires, and on approval exchange the token for a session.
 */
import { type PairingRequestCreated, pairLink, type User } from "@daysync/shared";
import QRCode from "qrcode";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "../../lib/api-errors.ts";
import { createPairingRequest, exchangeLoginToken } from "./pairing-api.ts";
import { type PairingOutcome, waitForApproval } from "./pairing-channel.ts";

/** A new code this long before the old one expires, so a scan in the last seconds still lands. */
const REFRESH_BEFORE_MS = 10_000;
/** After this many codes nobody scanned (about 20 minutes) the panel stops until asked again. */
const MAX_CODES = 10;
const RETRY_AFTER_LOST_MS = 2000;

export type PairingPanelState =
  | { phase: "loading" }
  | { phase: "showing"; request: PairingRequestCreated; link: string; qr: string; deadline: number }
  | { phase: "signing-in" }
  | { phase: "failed" }
  | { phase: "idle" }
  | { phase: "error"; message: string };

export function usePairingPanel(onSignedIn: (user: User) => void, onFailed: () => void) {
  const [state, setState] = useState<PairingPanelState>({ phase: "loading" });
  // Each new value starts a new code; the effect of the previous one cleans up after itself.
  const [attempt, setAttempt] = useState(0);
  const codesShown = useRef(0);
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };

  const restart = useCallback(() => {
    codesShown.current = 0;
    setAttempt((n) => n + 1);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each new attempt starts a new code
  useEffect(() => {
    if (codesShown.current >= MAX_CODES) {
      setState({ phase: "idle" });
      return;
    }
    codesShown.current += 1;
    let active = true;
    let closeChannel: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = (delay = 0) => {
      timer = setTimeout(() => {
        if (active) setAttempt((n) => n + 1);
      }, delay);
    };

    const onOutcome = async (outcome: PairingOutcome, request: PairingRequestCreated) => {
      if (!active) return;
      clearTimeout(timer);
      if (outcome.type === "expired") return next();
      if (outcome.type === "lost") return next(RETRY_AFTER_LOST_MS);
      if (outcome.type !== "approved") {
        setState({ phase: "failed" });
        return callbacks.current.onFailed();
      }
      setState({ phase: "signing-in" });
      try {
        const { user } = await exchangeLoginToken({ request_id: request.request_id, secret: request.secret, token: outcome.token });
        if (active) callbacks.current.onSignedIn(user);
      } catch {
        if (!active) return;
        setState({ phase: "failed" });
        callbacks.current.onFailed();
      }
    };

    setState({ phase: "loading" });
    (async () => {
      try {
        const request = await createPairingRequest();
        const deadline = Date.now() + request.expires_in;
        const link = pairLink(window.location.origin, request.code);
        const qr = await QRCode.toDataURL(link, { errorCorrectionLevel: "M", margin: 2, width: 264 });
        if (!active) return;
        setState({ phase: "showing", request, link, qr, deadline });
        closeChannel = waitForApproval(request, (outcome) => void onOutcome(outcome, request));
        next(Math.max(0, request.expires_in - REFRESH_BEFORE_MS));
      } catch (error) {
        if (active) setState({ phase: "error", message: describeError(error) });
      }
    })();

    return () => {
      active = false;
      clearTimeout(timer);
      closeChannel?.();
    };
  }, [attempt]);

  return { state, restart };
}

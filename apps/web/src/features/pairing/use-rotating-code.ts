/**
 * A code shown as a QR code on this device, renewed until used: both pairing directions (the login panel's
 * request, Add a device's offer) make one, show it with a countdown, listen on the pairing channel, make a
 * new one when it runs out or the channel is lost, and stop after MAX_CODES nobody used.
 */
import { withAuthorityPin } from "@daysync/shared";
import QRCode from "qrcode";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "../../lib/api-errors.ts";
import { loadLinkOrigin } from "../../lib/server-address.ts";
import type { PairingOutcome } from "./pairing-channel.ts";

/** After this many codes nobody used (about 20 minutes) it stops until asked again. */
const MAX_CODES = 10;
const RETRY_AFTER_LOST_MS = 2000;

export interface IssuedCode {
  code: string;
  expires_in: number;
}

export type RotatingCodeState<T, Settled> =
  | { phase: "loading" }
  | { phase: "showing"; issued: T; link: string; qr: string; deadline: number; reachable: boolean }
  | { phase: "idle" }
  | { phase: "error"; message: string }
  | Settled;

/** An outcome that ends this code: it was used (or refused), no new one comes by itself. */
export type SettledOutcome = Exclude<PairingOutcome, { type: "expired" } | { type: "lost" }>;

export interface RotatingCodeOptions<T extends IssuedCode, Settled> {
  issue: () => Promise<T>;
  /** The QR link of an issued code (with the key handover's secret in its fragment). */
  linkFor: (origin: string, issued: T) => string;
  /** When to make the next code unless the channel says otherwise first. */
  renewAfter: (expiresIn: number) => number;
  listen: (issued: T, onOutcome: (outcome: PairingOutcome) => void) => () => void;
  /** `active` turns false once this code is left (a new one, the page closed): set nothing after that. */
  onSettled: (outcome: SettledOutcome, issued: T, setState: (state: Settled) => void, active: () => boolean) => void;
}

export function useRotatingCode<T extends IssuedCode, Settled extends { phase: string }>(options: RotatingCodeOptions<T, Settled>) {
  const [state, setState] = useState<RotatingCodeState<T, Settled>>({ phase: "loading" });
  // Each new value starts a new code; the effect of the previous one cleans up after itself.
  const [attempt, setAttempt] = useState(0);
  const codesShown = useRef(0);
  const latest = useRef(options);
  latest.current = options;

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
    const { issue, linkFor, renewAfter, listen, onSettled } = latest.current;
    let active = true;
    let closeChannel: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = (delay = 0) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (active) setAttempt((n) => n + 1);
      }, delay);
    };

    const onOutcome = (outcome: PairingOutcome, issued: T) => {
      if (!active) return;
      if (outcome.type === "expired") return next();
      if (outcome.type === "lost") return next(RETRY_AFTER_LOST_MS);
      clearTimeout(timer);
      onSettled(
        outcome,
        issued,
        (settled) => setState(settled),
        () => active,
      );
    };

    setState({ phase: "loading" });
    (async () => {
      try {
        const issued = await issue();
        const deadline = Date.now() + issued.expires_in;
        // Never localhost: the device that opens the link is another one (issue 43).
        const target = await loadLinkOrigin();
        // On the home network's HTTPS the link names its authority, which `daysync login LINK` then trusts.
        const link = withAuthorityPin(linkFor(target.origin, issued), target.pin);
        const qr = await QRCode.toDataURL(link, { errorCorrectionLevel: "M", margin: 2, width: 264 });
        if (!active) return;
        setState({ phase: "showing", issued, link, qr, deadline, reachable: target.reachable });
        closeChannel = listen(issued, (outcome) => onOutcome(outcome, issued));
        next(renewAfter(issued.expires_in));
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

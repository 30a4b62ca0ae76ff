import { JOIN_ROUTE, TEXT, type User } from "@daysync/shared";
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { CloseIcon } from "../../components/ui/icons.tsx";
import { toastLoginFailed, toastLoginSuccess } from "../../components/ui/login-toasts.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { hasWebCrypto } from "../../lib/web-crypto.ts";
import { PairingCodeDisplay } from "./pairing-code-display.tsx";
import { usePairingPanel } from "./use-pairing-panel.ts";
import "./pairing.css";

interface PairingPanelProps {
  id: string;
  onClose: () => void;
  /** This device now has its own session (the cookie is set): start it and leave the login page. */
  onSignedIn: (user: User) => void;
}

/** The login page's side panel: a QR code another signed-in device scans and approves. */
export function PairingPanel({ id, onClose, onSignedIn }: PairingPanelProps) {
  const { state, restart, notice } = usePairingPanel(
    (user) => {
      toastLoginSuccess();
      onSignedIn(user);
    },
    () => toastLoginFailed(),
  );

  // On a phone the panel opens below the form: bring it into view.
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    panel.current?.scrollIntoView({ block: "nearest", behavior: reduced ? "auto" : "smooth" });
  }, []);

  return (
    <aside ref={panel} id={id} className="auth-aside pairing-panel" aria-labelledby={`${id}-title`}>
      <div className="auth-aside-head">
        <h2 id={`${id}-title`}>{TEXT.connectedDevice}</h2>
        <button type="button" className="btn btn-ghost btn-sm icon-only" aria-label="Close panel" onClick={onClose}>
          <CloseIcon size={18} />
        </button>
      </div>
      <p className="muted">
        On a phone or computer where you are signed in to Daysync, scan this code with the camera (or Devices → Scan or type a code), then
        approve. No password is typed here.
      </p>

      {state.phase === "showing" ? (
        <PairingCodeDisplay
          qr={state.qr}
          qrAlt="QR code that signs this device in when approved on your other device"
          deadline={state.deadline}
          shortCode={state.issued.short_code}
          shortCodePrompt="Or type this code on the other device:"
          shortCodeTestId="pairing-short-code"
          waitingText="Waiting for approval…"
          reachable={state.reachable}
        />
      ) : null}

      {notice ? (
        <p className="pairing-notice" role="alert" data-testid="pairing-notice">
          {notice}
        </p>
      ) : null}

      {state.phase === "loading" || state.phase === "signing-in" ? (
        <div className="pairing-qr pairing-qr-busy" role="status">
          <Spinner size="lg" label={state.phase === "loading" ? "Making a code" : "Signing you in"} />
          {state.phase === "signing-in" ? <span>Approved. Signing you in…</span> : null}
        </div>
      ) : null}

      {state.phase === "failed" || state.phase === "idle" || state.phase === "error" ? (
        <div className="pairing-stopped" role="alert">
          {state.phase === "failed" ? (
            <p>
              <strong>{TEXT.loginFailedTitle}.</strong> {TEXT.loginFailedBody}.
            </p>
          ) : null}
          {state.phase === "idle" ? <p>The codes shown were not used, so no new one is being made.</p> : null}
          {state.phase === "error" ? <p>{state.message}</p> : null}
          {/* A page without WebCrypto would only fail again. */}
          {hasWebCrypto() ? (
            <button type="button" className="btn btn-primary" onClick={restart}>
              Show a new code
            </button>
          ) : null}
        </div>
      ) : null}
      <p className="muted pairing-join-hint">
        Or choose Add a device on your signed-in device, and <Link to={JOIN_ROUTE}>type the code it shows</Link>.
      </p>
    </aside>
  );
}

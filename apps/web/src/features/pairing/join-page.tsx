import { APPROVAL_TEXT, JOIN_ROUTE, TEXT, type User } from "@daysync/shared";
import { useState } from "react";
import { Link, useLocation, useNavigate, useParams } from "react-router";
import { z } from "zod";
import { AlertIcon } from "../../components/ui/icons.tsx";
import { toastLoginFailed, toastLoginSuccess } from "../../components/ui/login-toasts.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { takeFragmentSecret } from "../../lib/sealing/pairing-handover.ts";
import { typedPairingCode } from "../../lib/sealing/typed-pairing.ts";
import { PairFrame } from "./pair-frame.tsx";
import { ShortCodeForm } from "./short-code-form.tsx";
import { useJoin } from "./use-join.ts";

/**
 * /pair/join/:code on the new device (signed out): the code of Add a device, opened by the phone's camera or typed.
 * It waits for the approval on the signed-in device; the code by itself signs nothing in.
 */
export function JoinPage({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const { code } = useParams();
  const navigate = useNavigate();
  // The typed code's password half stays on this device: in the page's history state, never in the address.
  const onCode = (typed: string) => {
    const parts = typedPairingCode(typed);
    if (parts) void navigate(`${JOIN_ROUTE}/${encodeURIComponent(parts.lookup)}`, { state: { password: parts.password } });
  };
  return (
    <PairFrame home="/login">
      {code ? (
        <Joining key={code} code={code} onSignedIn={onSignedIn} />
      ) : (
        <>
          <h1>Sign in with a code</h1>
          <p className="muted">
            On a device where you are signed in, choose “Add a device”, then type the code it shows under its QR code.
          </p>
          <ShortCodeForm onCode={onCode} />
          <p className="pair-links">
            <Link to="/login">Sign in with a password instead</Link>
          </p>
        </>
      )}
    </PairFrame>
  );
}

/** What the code form leaves in the history state: the typed code's password half. */
const typedStateSchema = z.object({ password: z.string() });

function Joining({ code, onSignedIn }: { code: string; onSignedIn: (user: User) => void }) {
  const [secret] = useState(takeFragmentSecret);
  const typed = typedStateSchema.safeParse(useLocation().state);
  const state = useJoin(
    code,
    secret,
    typed.success ? typed.data.password : null,
    (user) => {
      toastLoginSuccess();
      onSignedIn(user);
    },
    () => toastLoginFailed(),
  );

  switch (state.phase) {
    case "joining":
      return <Spinner size="lg" label="Opening the code" />;
    case "waiting":
      return (
        <div className="pair-outcome" role="status">
          <Spinner size="lg" />
          <h1>Waiting for approval on {state.deviceName}</h1>
          <p className="muted">Approve this device there. This page signs you in as soon as you do.</p>
        </div>
      );
    case "confirmed":
      return (
        <div className="pair-outcome" role="status">
          <Spinner size="lg" />
          <h1>Waiting for approval on {state.deviceName}</h1>
          <p className="muted">{APPROVAL_TEXT.waitingForHandover}</p>
        </div>
      );
    case "signing-in":
      return <Spinner size="lg" label="Approved. Signing you in" />;
    default: {
      const message =
        state.phase === "failed"
          ? `${TEXT.loginFailedTitle}. ${TEXT.loginFailedBody}.`
          : state.phase === "expired"
            ? "The code expired before it was approved. Show a new code on the other device."
            : state.phase === "wrong_code"
              ? APPROVAL_TEXT.joinWrongCode
              : state.phase === "ended"
                ? state.text
                : state.message;
      return (
        <div className="pair-outcome" role="alert">
          <AlertIcon size={28} />
          <h1>
            {state.phase === "failed" ? TEXT.loginFailedTitle : state.phase === "wrong_code" ? "Wrong code" : "This code cannot be used"}
          </h1>
          <p>{message}</p>
          <p className="pair-links">
            <Link to={JOIN_ROUTE}>Type another code</Link>
            <Link to="/login">Sign in with a password</Link>
          </p>
        </div>
      );
    }
  }
}

import { JOIN_ROUTE, TEXT, type User } from "@daysync/shared";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { AlertIcon } from "../../components/ui/icons.tsx";
import { toastLoginFailed, toastLoginSuccess } from "../../components/ui/login-toasts.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { takeFragmentSecret } from "./key-handover.ts";
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
          <ShortCodeForm onCode={(next) => void navigate(`${JOIN_ROUTE}/${encodeURIComponent(next)}`)} />
          <p className="pair-links">
            <Link to="/login">Sign in with a password instead</Link>
          </p>
        </>
      )}
    </PairFrame>
  );
}

function Joining({ code, onSignedIn }: { code: string; onSignedIn: (user: User) => void }) {
  const [secret] = useState(takeFragmentSecret);
  const state = useJoin(
    code,
    secret,
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
    case "signing-in":
      return <Spinner size="lg" label="Approved. Signing you in" />;
    default: {
      const message =
        state.phase === "failed"
          ? `${TEXT.loginFailedTitle}. ${TEXT.loginFailedBody}.`
          : state.phase === "expired"
            ? "The code expired before it was approved. Show a new code on the other device."
            : state.message;
      return (
        <div className="pair-outcome" role="alert">
          <AlertIcon size={28} />
          <h1>{state.phase === "failed" ? TEXT.loginFailedTitle : "This code cannot be used"}</h1>
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

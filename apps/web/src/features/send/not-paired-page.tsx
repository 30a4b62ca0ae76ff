import { APP_ROUTES } from "@daysync/shared";
import { Link } from "react-router";
import { readPendingSend } from "./pending-send.ts";
import { SEND_TEXT } from "./use-send-share.ts";
import "./send.css";

/**
 * /send or /latest in a browser not signed in: says how to pair; what was shared stays on this device and is sent
 * when sign-in brings the browser back to `returnTo`.
 */
export function NotPairedPage({ returnTo }: { returnTo: string }) {
  const kept = readPendingSend();
  return (
    <main className="send-page send-not-paired">
      <h1>Daysync</h1>
      <p role="status">{SEND_TEXT.notPaired}</p>
      <p>
        Sign in here with your password, or with the QR code on the sign-in page scanned by one of your signed-in devices. This browser then
        stays paired.
      </p>
      {kept ? <p>What you shared is kept on this device and sent once you are signed in.</p> : null}
      <Link className="btn btn-primary" to={APP_ROUTES.login} state={{ from: { pathname: returnTo, search: "", hash: "" } }}>
        Sign in
      </Link>
    </main>
  );
}

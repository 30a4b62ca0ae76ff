import { useNavigate, useParams } from "react-router";
import { PairFrame } from "./pair-frame.tsx";
import { PairingRequestReview } from "./pairing-request-review.tsx";
import { QrScanner } from "./qr-scanner.tsx";
import { ShortCodeForm } from "./short-code-form.tsx";

/**
 * /pair/:code on a signed-in device: what asks to be signed in, then Approve or Deny.
 * /pair: find the code first, with the camera or by typing it.
 */
export function PairPage() {
  const { code } = useParams();
  const navigate = useNavigate();
  const open = (next: string) => void navigate(`/pair/${encodeURIComponent(next)}`);
  return (
    <PairFrame home="/dashboard">
      {code ? (
        <PairingRequestReview key={code} code={code} />
      ) : (
        <>
          <h1>Sign in another device</h1>
          <p className="muted">
            On the new device, open Daysync's sign-in page and choose “Sign in using connected device”. Then scan the QR code it shows, or
            type the code under it.
          </p>
          <QrScanner onCode={open} />
          <ShortCodeForm onCode={open} />
        </>
      )}
    </PairFrame>
  );
}

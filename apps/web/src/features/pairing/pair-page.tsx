import { useState } from "react";
import { useLocation, useNavigate, useParams } from "react-router";
import { z } from "zod";
import { pairingFragment, takeFragmentSecret } from "../../lib/sealing/pairing-handover.ts";
import { typedPairingCode } from "../../lib/sealing/typed-pairing.ts";
import { PairFrame } from "./pair-frame.tsx";
import { PairingRequestReview } from "./pairing-request-review.tsx";
import { QrScanner } from "./qr-scanner.tsx";
import { ShortCodeForm } from "./short-code-form.tsx";
import { TypedPairingReview } from "./typed-pairing-review.tsx";

/**
 * /pair/:code on a signed-in device: what asks to be signed in, then Approve or Deny.
 * /pair: find the code first, with the camera or by typing it.
 */
/** `userId`: the signed-in account, whose key this device hands over. */
export function PairPage({ userId }: { userId: string }) {
  const { code } = useParams();
  const navigate = useNavigate();
  // The scanner keeps the link's secret: it travels in the fragment to the review, which takes it out again.
  const open = (next: string, secret?: string | null) =>
    void navigate(`/pair/${encodeURIComponent(next)}${secret ? pairingFragment(secret) : ""}`);
  // A typed code: only its lookup half goes into the address; the password half stays in this page's memory.
  const openTyped = (typed: string) => {
    const parts = typedPairingCode(typed);
    if (parts) void navigate(`/pair/${encodeURIComponent(parts.lookup)}`, { state: { password: parts.password } });
  };
  return (
    <PairFrame home="/dashboard">
      {code ? (
        <Review key={code} code={code} userId={userId} />
      ) : (
        <>
          <h1>Sign in another device</h1>
          <p className="muted">
            On the new device, open Daysync's sign-in page and choose “Sign in using connected device”. Then scan the QR code it shows, or
            type the code under it.
          </p>
          <QrScanner onCode={open} />
          <ShortCodeForm onCode={openTyped} />
        </>
      )}
    </PairFrame>
  );
}

/** What the short-code form hands the review through the navigation's state. */
const typedState = z.object({ password: z.string() });

function Review({ code, userId }: { code: string; userId: string }) {
  const [secret] = useState(takeFragmentSecret);
  const typed = typedState.safeParse(useLocation().state);
  if (typed.success) return <TypedPairingReview lookup={code} password={typed.data.password} userId={userId} />;
  return <PairingRequestReview code={code} secret={secret} userId={userId} />;
}

import { APPROVAL_TEXT, JOIN_ROUTE, type PairingRequestDetails } from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { Link } from "react-router";
import { AlertIcon, CheckIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { approvalFor } from "../../lib/sealing/pairing-handover.ts";
import { type ApprovalStep, approveTyped, typedApprover } from "../../lib/sealing/typed-pairing.ts";
import { useLinkOrigin } from "../../lib/server-address.ts";
import { PairFrame } from "./pair-frame.tsx";
import { approveOffer, denyOffer } from "./pairing-api.ts";
import { PairingCodeDisplay } from "./pairing-code-display.tsx";
import { KeyNotVerified, RequestDecision } from "./pairing-request-review.tsx";
import { useDeviceOffer } from "./use-device-offer.ts";

/** /pair/add on a signed-in device: a code the new device opens, then Approve or Deny what opened it. */
export function AddDevicePage({ userId }: { userId: string }) {
  const { state, restart } = useDeviceOffer();
  // The address the new device can open: never this computer's localhost.
  const shownHost = new URL(useLinkOrigin()?.origin ?? window.location.origin).host;
  return (
    <PairFrame home="/dashboard">
      {state.phase === "review" ? (
        <OfferReview
          key={state.offerId}
          offerId={state.offerId}
          request={state.request}
          secret={state.secret}
          password={state.password}
          userId={userId}
          onAnother={restart}
        />
      ) : (
        <>
          <h1>Add a device</h1>
          <p className="muted">
            On your phone or other computer, point the camera at this code and open the link it shows. Or open{" "}
            <strong>
              {shownHost}
              {JOIN_ROUTE}
            </strong>{" "}
            there and type the code under it. You approve here before it is signed in.
          </p>
          {state.phase === "showing" ? (
            <PairingCodeDisplay
              qr={state.qr}
              qrAlt="QR code that opens the sign-in of your new device"
              deadline={state.deadline}
              shortCode={`${state.issued.short_code}${state.issued.password}`}
              shortCodePrompt="Or type this code on the new device:"
              shortCodeTestId="offer-short-code"
              waitingText="Waiting for the new device to open the code…"
              reachable={state.reachable}
            />
          ) : null}
          {state.phase === "loading" ? (
            <div className="pairing-qr pairing-qr-busy" role="status">
              <Spinner size="lg" label="Making a code" />
            </div>
          ) : null}
          {state.phase === "idle" || state.phase === "error" ? (
            <div className="pairing-stopped" role="alert">
              <p>{state.phase === "idle" ? "The codes shown were not used, so no new one is being made." : state.message}</p>
              <button type="button" className="btn btn-primary" onClick={restart}>
                Show a new code
              </button>
            </div>
          ) : null}
        </>
      )}
    </PairFrame>
  );
}

/** Approve of a device that typed the code: the typed code's exchange with this page's password half (nothing typed here). */
async function approveTypedOffer(request: PairingRequestDetails, password: string, userId: string): Promise<"approved" | ApprovalStep> {
  if (!request.exchange) throw new Error("Not a typed code");
  const approver = await typedApprover(userId);
  if (!approver) throw new Error(APPROVAL_TEXT.cannotApprove);
  const step = await approveTyped(approver, request.exchange, password);
  if (step.step === "approved") return "approved";
  // Not signed in: a wrong code cannot be typed again into this request (its share is the first this page saw).
  if (step.step === "wrong_code") await approver.deny().catch(() => undefined);
  return step;
}

/** The device that opened the code: what it is, and Approve / Deny (only this device may answer). */
function OfferReview({
  offerId,
  request,
  secret,
  password,
  userId,
  onAnother,
}: {
  offerId: string;
  request: PairingRequestDetails;
  secret: string;
  password: string;
  userId: string;
  onAnother: () => void;
}) {
  const approve = useMutation({
    mutationFn: async (): Promise<"approved" | "not_verified" | ApprovalStep> => {
      // The code typed on the new device: its exchange signs it in holding the key, in one round.
      if (request.exchange) return approveTypedOffer(request, password, userId);
      // Opened by the QR link: the handover goes with the link's secret.
      const approval = request.public_key ? await approvalFor(secret, request, userId) : {};
      if (approval === "not_verified") {
        await denyOffer(offerId);
        return "not_verified" as const;
      }
      await approveOffer(offerId, approval);
      return "approved" as const;
    },
  });
  const deny = useMutation({ mutationFn: () => denyOffer(offerId) });

  const ended = typeof approve.data === "object" && approve.data.step !== "waiting" ? approve.data : undefined;
  if (ended) return <TypedOfferEnded step={ended} onAnother={onAnother} />;
  if (approve.data === "not_verified") return <KeyNotVerified />;

  if (approve.data === "approved" || deny.isSuccess) {
    return (
      <div className="pair-outcome" role="status">
        {approve.data === "approved" ? <CheckIcon size={28} /> : null}
        <h1>{approve.data === "approved" ? "Approved" : "Denied"}</h1>
        <p>
          {approve.data === "approved"
            ? `${request.name} is now signing in. You can sign it out any time from Devices.`
            : "That device was not signed in."}
        </p>
        <button type="button" className="btn btn-secondary" onClick={onAnother}>
          Add another device
        </button>
        <p className="pair-links">
          <Link to="/dashboard/devices">Devices</Link>
          <Link to="/dashboard">Back to messages</Link>
        </p>
      </div>
    );
  }

  const timedOut = typeof approve.data === "object" ? new Error("The new device did not answer in time.") : null;
  const failure = approve.error ?? deny.error ?? timedOut;
  return (
    <RequestDecision
      title="Sign in this device?"
      intro="A device opened your code and asks to be signed in to your Daysync account:"
      request={request}
      failure={
        failure ? (
          <div className="pair-error" role="alert">
            <p>{describeError(failure)}</p>
            <button type="button" className="btn btn-secondary btn-sm" onClick={onAnother}>
              Show a new code
            </button>
          </div>
        ) : null
      }
      approving={approve.isPending}
      denying={deny.isPending}
      onApprove={() => approve.mutate()}
      onDeny={() => deny.mutate()}
    />
  );
}

/** A typed code's exchange that did not sign the device in: a wrong code, a changed request, or its end. */
function TypedOfferEnded({ step, onAnother }: { step: ApprovalStep; onAnother: () => void }) {
  const text =
    step.step === "wrong_code"
      ? APPROVAL_TEXT.offerWrongCode
      : step.step === "refused"
        ? APPROVAL_TEXT.refused
        : step.step === "ended" && step.status === "denied"
          ? APPROVAL_TEXT.denied
          : APPROVAL_TEXT.endedWrongCodes;
  return (
    <div className="pair-outcome" role="alert">
      <AlertIcon size={28} />
      <h1>{step.step === "wrong_code" ? "Wrong code" : "Not approved"}</h1>
      <p>{text}</p>
      <button type="button" className="btn btn-secondary" onClick={onAnother}>
        Show a new code
      </button>
      <p className="pair-links">
        <Link to="/dashboard">Back to messages</Link>
      </p>
    </div>
  );
}

import { APPROVAL_TEXT } from "@daysync/shared";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { AlertIcon, CheckIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { type ApprovalStep, approveTyped, typedApprover } from "../../lib/sealing/typed-pairing.ts";
import { denyPairing, getPairingRequest } from "./pairing-api.ts";
import { PairingRequestReview, RequestDecision } from "./pairing-request-review.tsx";

/**
 * A typed code's approval (typed-code.ts): Approve answers with the code's password half, waits for the new device to
 * confirm, then hands over, which signs it in holding the key. A code with no exchange is reviewed as before.
 */
export function TypedPairingReview({ lookup, password, userId }: { lookup: string; password: string; userId: string }) {
  const details = useQuery({
    queryKey: ["pairing-request", lookup],
    queryFn: ({ signal }) => getPairingRequest(lookup, signal),
    staleTime: 0,
    retry: false,
  });
  const approve = useMutation({
    mutationFn: async (): Promise<ApprovalStep> => {
      const exchange = details.data?.exchange;
      if (!exchange) throw new Error("Not ready");
      const approver = await typedApprover(userId);
      if (!approver) throw new Error(APPROVAL_TEXT.cannotApprove);
      return approveTyped(approver, exchange, password);
    },
  });
  const deny = useMutation({ mutationFn: () => denyPairing(lookup) });

  if (details.isPending) return <Spinner size="lg" label="Looking up the code" />;
  // Not a typed code's request (one asked by an older app, whose whole code the server knows): reviewed as before.
  if (details.isError || !details.data.exchange)
    return <PairingRequestReview code={`${lookup}${password}`} secret={null} userId={userId} />;

  const step = approve.data;
  if (step?.step === "approved") {
    return (
      <div className="pair-outcome" role="status">
        <CheckIcon size={28} />
        <h1>Approved</h1>
        <p>{APPROVAL_TEXT.approved(details.data.name)} It is now signing in. You can sign it out any time from Devices.</p>
        <p className="pair-links">
          <Link to="/dashboard/devices">Devices</Link>
          <Link to="/dashboard">Back to messages</Link>
        </p>
      </div>
    );
  }
  if (step && step.step !== "waiting" && step.step !== "confirmed") return <TypedOutcome step={step} />;
  if (deny.isSuccess) {
    return (
      <div className="pair-outcome" role="status">
        <h1>Denied</h1>
        <p>That device was not signed in.</p>
        <p className="pair-links">
          <Link to="/dashboard">Back to messages</Link>
        </p>
      </div>
    );
  }
  const failure = approve.error ?? deny.error ?? (step?.step === "waiting" ? new Error("The new device did not answer in time.") : null);
  return (
    <RequestDecision
      title="Sign in a device?"
      intro="A device asks to be signed in to your Daysync account:"
      request={details.data}
      failure={
        failure ? (
          <p className="pair-error" role="alert">
            {describeError(failure)}
          </p>
        ) : approve.isPending ? (
          <p className="muted" role="status">
            {APPROVAL_TEXT.checking(details.data.name)}
          </p>
        ) : null
      }
      approving={approve.isPending}
      denying={deny.isPending}
      onApprove={() => approve.mutate()}
      onDeny={() => deny.mutate()}
    />
  );
}

/** A wrong code (type it again), or the request's end, in the words the approval uses. */
function TypedOutcome({ step }: { step: ApprovalStep }) {
  const text =
    step.step === "wrong_code"
      ? APPROVAL_TEXT.wrongCode(step.left)
      : step.step === "refused"
        ? APPROVAL_TEXT.refused
        : APPROVAL_TEXT.endedWrongCodes;
  return (
    <div className="pair-outcome" role="alert">
      <AlertIcon size={28} />
      <h1>{step.step === "wrong_code" ? "Wrong code" : "Not approved"}</h1>
      <p>{step.step === "ended" && step.status === "denied" ? APPROVAL_TEXT.denied : text}</p>
      <p className="pair-links">
        {step.step === "wrong_code" ? <Link to="/pair">Type the code again</Link> : null}
        <Link to="/dashboard">Back to messages</Link>
      </p>
    </div>
  );
}

import type { PairingRequestDetails } from "@daysync/shared";
import { HANDOVER_TEXT } from "@daysync/shared";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { AlertIcon, CheckIcon, ShieldIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { approvalFor } from "../../lib/sealing/pairing-handover.ts";
import { approvePairing, denyPairing, getPairingRequest } from "./pairing-api.ts";

const timeOf = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });

function RequestFacts({ request }: { request: PairingRequestDetails }) {
  const secondsAgo = Math.max(0, Math.round((Date.now() - request.created_at) / 1000));
  return (
    <dl className="pair-facts">
      <dt>Browser</dt>
      <dd>{request.browser}</dd>
      <dt>System</dt>
      <dd>{request.os}</dd>
      <dt>Asked at</dt>
      <dd>
        {timeOf(request.created_at)}{" "}
        <span className="muted">({secondsAgo < 60 ? "just now" : `${Math.round(secondsAgo / 60)} min ago`})</span>
      </dd>
      <dt>IP address</dt>
      <dd>{request.ip}</dd>
    </dl>
  );
}

interface DecisionProps {
  title: string;
  intro: string;
  request: PairingRequestDetails;
  /** What went wrong with the last answer, if anything. */
  failure: ReactNode;
  approving: boolean;
  denying: boolean;
  onApprove: () => void;
  onDeny: () => void;
}

/** Who asks to be signed in (browser, system, time, IP), the warning, and Approve / Deny. */
export function RequestDecision({ title, intro, request, failure, approving, denying, onApprove, onDeny }: DecisionProps) {
  const busy = approving || denying;
  return (
    <div className="pair-review">
      <h1>{title}</h1>
      <p>{intro}</p>
      <RequestFacts request={request} />
      <ApproveWarning />
      {failure}
      <div className="pair-actions">
        <button type="button" className="btn btn-primary" disabled={busy} onClick={onApprove}>
          {approving ? <Spinner /> : null}
          Approve
        </button>
        <button type="button" className="btn btn-secondary" disabled={busy} onClick={onDeny}>
          {denying ? <Spinner /> : null}
          Deny
        </button>
      </div>
    </div>
  );
}

function ApproveWarning() {
  return (
    <div className="pair-warning" role="note">
      <ShieldIcon size={22} />
      <p>
        <strong>Approving signs that device in to your account.</strong> It will see and send your messages until you sign it out in
        Devices. Approve only if it is your device and you are in front of it.
      </p>
    </div>
  );
}

/** The asking device's key did not check out: the request was denied rather than approved. */
export function KeyNotVerified() {
  return (
    <div className="pair-outcome" role="alert">
      <AlertIcon size={28} />
      <h1>Not approved</h1>
      <p>{HANDOVER_TEXT.keyNotVerified}</p>
      <p className="pair-links">
        <Link to="/dashboard">Back to messages</Link>
      </p>
    </div>
  );
}

/** What asks to be signed in, the warning, and Approve / Deny. `secret`: the QR link's, for the key handover. */
export function PairingRequestReview({ code, secret, userId }: { code: string; secret: string | null; userId: string }) {
  const details = useQuery({ queryKey: ["pairing-request", code], queryFn: ({ signal }) => getPairingRequest(code, signal), staleTime: 0 });
  const approve = useMutation({
    mutationFn: async () => {
      if (!details.data) throw new Error("Not ready");
      const approval = await approvalFor(secret, details.data, userId);
      if (approval === "not_verified") {
        await denyPairing(code);
        return "not_verified" as const;
      }
      await approvePairing(code, approval);
      return "approved" as const;
    },
  });
  const deny = useMutation({ mutationFn: () => denyPairing(code) });

  if (approve.data === "not_verified") return <KeyNotVerified />;
  if (approve.isSuccess) {
    return (
      <div className="pair-outcome" role="status">
        <CheckIcon size={28} />
        <h1>Approved</h1>
        <p>{details.data?.name ?? "The other device"} is now signing in. You can sign it out any time from Devices.</p>
        <p className="pair-links">
          <Link to="/dashboard/devices">Devices</Link>
          <Link to="/dashboard">Back to messages</Link>
        </p>
      </div>
    );
  }
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
  if (details.isPending) return <Spinner size="lg" label="Looking up the code" />;
  if (details.isError) {
    return (
      <div className="pair-outcome" role="alert">
        <AlertIcon size={28} />
        <h1>This code cannot be used</h1>
        <p>{describeError(details.error)}</p>
        <p className="pair-links">
          <Link to="/pair">Scan or type another code</Link>
        </p>
      </div>
    );
  }

  const failure = approve.error ?? deny.error;
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
        ) : null
      }
      approving={approve.isPending}
      denying={deny.isPending}
      onApprove={() => approve.mutate()}
      onDeny={() => deny.mutate()}
    />
  );
}

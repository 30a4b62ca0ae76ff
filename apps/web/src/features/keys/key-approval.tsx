/**
 * Approval by a typed code on the web (docs/protocol/encryption.md, "Approving a device"), above every signed-in page.
 * A locked device asks and shows a code to type on another device, and takes the key once that device handed it over
 * under the exchange's key; it offers the recovery code when the account has one, and Start over only when no other
 * signed-in device holds the account's key. A device that can read shows each request of the account's other devices
 * as it comes, with a field for the code, Approve and Deny.
 */
import { APPROVAL_TEXT, formatStoredTime, HANDOVER_TEXT, KEY_REQUEST_MAX_FAILURES, type KeyRequest, SEALED_TEXT } from "@daysync/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, useSyncExternalStore } from "react";
import { toast } from "react-toastify";
import { describeError } from "../../lib/api-errors.ts";
import { keysStateQuery } from "../../lib/keys-state.ts";
import type { DeviceKeys } from "../../lib/sealing/device-keys.ts";
import { type ApprovalStep, isApprovalCode, type KeyApprover, type KeyRequester } from "../../lib/sealing/key-approval.ts";
import { useLinkOrigin } from "../../lib/server-address.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { useLogout } from "../../lib/use-logout.ts";
import { keyRequestsKey } from "./api/keys-cache.ts";
import { RecoveryUnlock } from "./recovery-unlock.tsx";
import { StartOver, StartOverRequested } from "./start-over.tsx";
import "./key-approval.css";

export const KEY_APPROVAL_TEXT = {
  locked: SEALED_TEXT.approveToSend,
  codeFormat: "Type the six digits shown on the new device.",
  denied: APPROVAL_TEXT.denied,
  /** A locked device with no other signed-in device holding the key: nothing can approve it. */
  alone: "No other signed-in device can read your messages, so none can approve this one.",
};

/** How far a request has gone: a copy that is not further along than one seen before is old news. */
const STAGE: Record<KeyRequest["status"], number> = {
  pending: 0,
  answered: 1,
  confirmed: 2,
  approved: 3,
  denied: 99,
  expired: 99,
  failed: 99,
};
/** Each wrong code starts the steps again, further along. */
const rank = (request: KeyRequest) => (STAGE[request.status] >= 99 ? 99 : request.failures * 4 + STAGE[request.status]);

/** What the locked device says for an ended step. */
function endedText(step: ApprovalStep): string | undefined {
  if (step.step === "refused") return APPROVAL_TEXT.refused;
  if (step.step !== "ended") return undefined;
  return step.status === "failed" ? APPROVAL_TEXT.endedWrongCodes : APPROVAL_TEXT.denied;
}

/**
 * The account's requests (app/ keeps each live change to one in the cache), handing each step of a request to
 * `onEvent` once, however it came: a live event, or a fetch (a first connection replays nothing, and the other
 * device may have moved on before this page's socket was open).
 */
function useKeyRequests(keys: DeviceKeys, onEvent?: (request: KeyRequest) => void) {
  const requests = useQuery({ queryKey: keyRequestsKey, queryFn: () => keys.approval.requests() });
  const latest = useRef(onEvent);
  latest.current = onEvent;
  const seen = useRef(new Map<string, number>());
  useEffect(() => {
    for (const request of requests.data ?? []) {
      if ((seen.current.get(request.id) ?? -1) >= rank(request)) continue;
      seen.current.set(request.id, rank(request));
      latest.current?.(request);
    }
  }, [requests.data]);
  return requests.data ?? [];
}

export function KeyApproval() {
  const { keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  if (status.state === "locked") return <LockedDevice keys={keys} />;
  if (status.state === "ready")
    return (
      <>
        <StartOverRequested />
        <IncomingRequests keys={keys} sessionId={status.sessionId} />
      </>
    );
  if (status.state === "failed" && status.insecure) return <InsecureAddress />;
  if (status.state === "lost") return <LostKey />;
  return null;
}

/**
 * The server holds a public key for this session that this browser no longer has (its site data was cleared): no
 * device can hand it the key any more, so the way back is a new session, which makes a new key pair.
 */
function LostKey() {
  const titleId = useId();
  const logout = useLogout();
  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{SEALED_TEXT.lost}</h2>
      <p className="key-approval-muted">
        What this browser kept was cleared. Sign in again: it makes a new key, which one of your other devices, or your recovery code, then
        lets read.
      </p>
      <div className="key-approval-actions">
        <button type="button" className="btn btn-primary" onClick={() => void logout()}>
          Sign out to sign in again
        </button>
      </div>
    </section>
  );
}

/** A plain-http address other than this computer: the browser has no WebCrypto here, so this device cannot take part. */
function InsecureAddress() {
  const titleId = useId();
  const target = useLinkOrigin();
  const secure = target?.origin.startsWith("https://") ? target.origin : undefined;
  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{SEALED_TEXT.insecure}</h2>
      <p className="key-approval-muted">
        Your messages are end-to-end encrypted, and browsers encrypt only on https:// addresses or on the computer Daysync runs on.
      </p>
      {target?.trustUrl ? (
        <p>
          <a href={target.trustUrl}>Set up HTTPS on this device</a>: install your server's certificate once, step by step
          {secure ? (
            <>
              , then open <a href={secure}>{secure}</a>
            </>
          ) : null}
          .
        </p>
      ) : secure ? (
        <p>
          Open Daysync at <a href={secure}>{secure}</a>.
        </p>
      ) : (
        <p>
          Ask the owner of this server to serve it over HTTPS: the "Home network" section of its deployment guide (docs/deploy.md) shows
          how.
        </p>
      )}
    </section>
  );
}

function LockedDevice({ keys }: { keys: DeviceKeys }) {
  const titleId = useId();
  const state = useQuery(keysStateQuery);
  const alone = state.data?.other_devices_with_current_key === 0;
  const requester = useRef<KeyRequester | undefined>(undefined);
  const [step, setStep] = useState<ApprovalStep>({ step: "waiting" });
  const [problem, setProblem] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useKeyRequests(keys, (request) => {
    const asking = requester.current;
    if (!asking || request.id !== asking.id) return;
    void asking.update(request).then(async (next) => {
      const ended = endedText(next);
      if (ended) return setProblem(ended);
      setStep(next);
      if (next.step !== "approved") return;
      try {
        if (await asking.accept(request)) await keys.refresh();
      } catch {
        setProblem(HANDOVER_TEXT.handoverNotVerified);
      }
    });
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new request per attempt, once.
  useEffect(() => {
    const asking = keys.requester();
    if (!asking) return;
    requester.current = asking;
    setStep({ step: "waiting" });
    asking.ask().then(
      () => setStep({ step: "show", code: asking.code, wrongCodes: 0 }),
      (failure: unknown) => setProblem(describeError(failure)),
    );
  }, [attempt]);

  const again = () => {
    setProblem(undefined);
    setAttempt((n) => n + 1);
  };

  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{KEY_APPROVAL_TEXT.locked}</h2>
      {problem ? (
        <>
          <p role="alert">{problem}</p>
          <div className="key-approval-actions">
            <button type="button" className="btn btn-primary btn-sm" onClick={again}>
              Ask again
            </button>
          </div>
        </>
      ) : alone ? (
        <p>{KEY_APPROVAL_TEXT.alone}</p>
      ) : step.step === "show" ? (
        <div>
          <p id={`${titleId}-code`}>{APPROVAL_TEXT.typeThisCode}</p>
          <p className="key-approval-code" aria-describedby={`${titleId}-code`}>
            {step.code}
          </p>
          <p className="key-approval-muted">{APPROVAL_TEXT.whereToType}</p>
          {step.wrongCodes > 0 ? <p role="status">{APPROVAL_TEXT.wrongCodeTyped(KEY_REQUEST_MAX_FAILURES - step.wrongCodes)}</p> : null}
        </div>
      ) : step.step === "confirmed" || step.step === "approved" ? (
        <p role="status">{APPROVAL_TEXT.waitingForHandover}</p>
      ) : (
        <p className="key-approval-muted">Asking your other devices…</p>
      )}
      <RecoveryUnlock keys={keys} onUnlocked={() => void requester.current?.refuse().catch(() => undefined)} />
      <StartOver keys={keys} />
    </section>
  );
}

function IncomingRequests({ keys, sessionId }: { keys: DeviceKeys; sessionId: string }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const approvers = useRef(new Map<string, KeyApprover>());
  const handedOver = useRef(new Set<string>());
  const [steps, setSteps] = useState<Record<string, ApprovalStep>>({});
  const setStep = (id: string, step: ApprovalStep) => setSteps((old) => ({ ...old, [id]: step }));

  /** The request's approver, made at its first copy: it keeps that copy's values for the whole request. */
  const approverOf = (request: KeyRequest) => {
    let approver = approvers.current.get(request.id);
    if (!approver) {
      approver = keys.approver();
      if (!approver) return undefined;
      approver.see(request);
      approvers.current.set(request.id, approver);
    }
    return approver;
  };

  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (failure) {
      toast.error(describeError(failure));
    }
  };

  /** Shows the step, and hands over once (the asking device confirmed the code). */
  const follow = async (request: KeyRequest, approver: KeyApprover, step: ApprovalStep) => {
    setStep(request.id, step);
    if (step.step !== "confirmed" || handedOver.current.has(request.id)) return;
    handedOver.current.add(request.id);
    await act(async () => {
      await approver.approve();
      toast.success(APPROVAL_TEXT.approved(request.device.name));
      // This device then adds the approved one to the signed device list (docs/protocol/encryption.md).
      void keys.refresh();
    });
  };

  const requests = useKeyRequests(keys, (request) => {
    if (request.session_id === sessionId) return;
    const approver = approverOf(request);
    if (!approver) return;
    // "waiting" says nothing new: before Approve the field stays, after it "Checking…" stays.
    void approver.update(request).then((step) => (step.step === "waiting" ? undefined : follow(request, approver, step)));
  });
  const now = Date.now();
  const shown = requests.filter((r) => {
    if (r.session_id === sessionId || r.expires_at <= now) return false;
    const step = steps[r.id];
    if (step?.step === "refused" || (step?.step === "ended" && step.status === "failed")) return true;
    return r.status === "pending" || r.status === "answered" || r.status === "confirmed";
  });
  if (shown.length === 0) return null;

  const approve = (request: KeyRequest, typed: string) =>
    act(async () => {
      const approver = approverOf(request);
      if (!approver) return;
      setStep(request.id, { step: "waiting" });
      // The latest copy: a wrong code before this one moved it on.
      const latest = queryClient.getQueryData<KeyRequest[]>(keyRequestsKey)?.find((r) => r.id === request.id) ?? request;
      await follow(request, approver, await approver.answer(latest, typed));
    });
  const deny = (request: KeyRequest) =>
    act(async () => {
      const approver = approvers.current.get(request.id);
      if (approver) await approver.deny();
      else await keys.approval.deny(request.id);
    });

  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>A device asks to read your messages</h2>
      <ul className="key-approval-list">
        {shown.map((request) => (
          <IncomingRequest
            key={request.id}
            request={request}
            step={steps[request.id]}
            onApprove={(typed) => void approve(request, typed)}
            onDeny={() => void deny(request)}
          />
        ))}
      </ul>
    </section>
  );
}

/** One request: who asks, the field for the code it shows, Approve and Deny; then what came of the code. */
function IncomingRequest(props: {
  request: KeyRequest;
  step: ApprovalStep | undefined;
  onApprove: (code: string) => void;
  onDeny: () => void;
}) {
  const { request, step } = props;
  const name = request.device.name;
  const fieldId = useId();
  const [typed, setTyped] = useState("");
  const [invalid, setInvalid] = useState(false);
  const ended = step?.step === "refused" ? APPROVAL_TEXT.refused : step?.step === "ended" ? APPROVAL_TEXT.endedWrongCodes : undefined;
  const checking = step?.step === "waiting" || step?.step === "confirmed" || step?.step === "approved";
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!isApprovalCode(typed)) return setInvalid(true);
    setInvalid(false);
    props.onApprove(typed);
    setTyped("");
  };
  return (
    <li aria-label={`Request from ${name}`}>
      <p>
        <strong>{name}</strong>{" "}
        <span className="key-approval-muted">
          {request.device.browser} on {request.device.os} · IP {request.device.ip} · asked at{" "}
          {formatStoredTime(new Date(request.created_at))}
        </span>
      </p>
      {ended ? (
        <p role="alert">{ended}</p>
      ) : checking ? (
        <p role="status">{APPROVAL_TEXT.checking(name)}</p>
      ) : (
        <form className="key-approval-form" onSubmit={submit} noValidate>
          {step?.step === "wrong_code" ? <p role="alert">{APPROVAL_TEXT.wrongCode(step.left)}</p> : null}
          <label htmlFor={fieldId}>{APPROVAL_TEXT.codeField}</label>
          <input
            id={fieldId}
            className="input input-bordered input-sm"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${fieldId}-error` : undefined}
          />
          {invalid ? <p id={`${fieldId}-error`}>{KEY_APPROVAL_TEXT.codeFormat}</p> : null}
          <div className="key-approval-actions">
            <button type="submit" className="btn btn-primary btn-sm" aria-label={`${APPROVAL_TEXT.approve} ${name}`}>
              {APPROVAL_TEXT.approve}
            </button>
            <button type="button" className="btn btn-ghost btn-sm" onClick={props.onDeny} aria-label={`${APPROVAL_TEXT.deny} ${name}`}>
              {APPROVAL_TEXT.deny}
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/**
 * Approval by check code on the web (decision 020, sections 4.2 and 5), above every signed-in page. A locked device
 * asks and, once another device compares codes, asks the person whether both show the same six digits; it offers the
 * recovery code when the account has one, and Start over only when no other signed-in device holds the account's key. A device that can read shows each request
 * of the account's other devices as it comes, with Compare codes, then Approve or Deny.
 */
import { formatStoredTime, KEYS_API, type KeyRequest, keysStateSchema, type LiveEvent, SEALED_TEXT } from "@daysync/shared";
import { type ApprovalStep, HANDOVER_TEXT, type KeyApprover, type KeyRequester } from "@daysync/shared/crypto";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, useSyncExternalStore } from "react";
import { toast } from "react-toastify";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import type { DeviceKeys } from "../../lib/device-keys.ts";
import type { LiveConnection } from "../../lib/live-connection.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { useLogout } from "../../lib/use-logout.ts";
import { RecoveryUnlock } from "./recovery-unlock.tsx";
import "./key-approval.css";

export const KEY_APPROVAL_TEXT = {
  locked: SEALED_TEXT.approveToSend,
  confirm: (code: string) => `Does your other device show ${code}?`,
  approveOnlyIf: (name: string, code: string) => `Approve only if ${name} shows ${code}`,
  startOverConfirm:
    "Start over? What was sent before can no longer be read on any device and is deleted as it expires. This cannot be undone.",
  denied: "The request was ended on one of your devices.",
};

const requestsKey = ["key-requests"] as const;

/** How far a request has gone: a copy that is not further along than one seen before is old news. */
const STAGE: Record<KeyRequest["status"], number> = { pending: 0, answered: 1, revealed: 2, approved: 3, denied: 3, expired: 3 };

/**
 * Keeps the account's requests in the query cache, with each live change to one put in place, and hands each step of
 * a request to `onEvent` once, however it came: a live event, or a fetch (a first connection replays nothing, and the
 * other device may have moved on before this page's socket was open).
 */
function useKeyRequests(keys: DeviceKeys, live: LiveConnection, onEvent?: (request: KeyRequest) => void) {
  const queryClient = useQueryClient();
  const requests = useQuery({ queryKey: requestsKey, queryFn: () => keys.approval.requests() });
  const latest = useRef(onEvent);
  latest.current = onEvent;
  const seen = useRef(new Map<string, number>());
  const deliver = useRef((request: KeyRequest) => {
    if ((seen.current.get(request.id) ?? -1) >= STAGE[request.status]) return;
    seen.current.set(request.id, STAGE[request.status]);
    latest.current?.(request);
  }).current;
  useEffect(
    () =>
      live.onEvent((event: LiveEvent) => {
        if (event.kind !== "key.requested" && event.kind !== "key.request_updated") return;
        const request = event.request;
        queryClient.setQueryData<KeyRequest[]>(requestsKey, (old = []) => [...old.filter((r) => r.id !== request.id), request]);
        deliver(request);
      }),
    [live, queryClient, deliver],
  );
  useEffect(() => {
    for (const request of requests.data ?? []) deliver(request);
  }, [requests.data, deliver]);
  return requests.data ?? [];
}

export function KeyApproval() {
  const { keys, live } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  if (status.state === "locked") return <LockedDevice keys={keys} live={live} />;
  if (status.state === "ready") return <IncomingRequests keys={keys} live={live} sessionId={status.sessionId} />;
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
  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{SEALED_TEXT.insecure}</h2>
      <p className="key-approval-muted">
        Your messages are end-to-end encrypted, and browsers encrypt only on https:// addresses or on the computer Daysync runs on.
      </p>
    </section>
  );
}

function LockedDevice({ keys, live }: { keys: DeviceKeys; live: LiveConnection }) {
  const titleId = useId();
  const requester = useRef<KeyRequester | undefined>(undefined);
  const [step, setStep] = useState<ApprovalStep>({ step: "waiting" });
  const [said, setSaid] = useState<"yes" | undefined>();
  const [problem, setProblem] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  const saidYes = useRef(false);
  const approved = useRef<KeyRequest | undefined>(undefined);

  const accept = async (request: KeyRequest) => {
    const asking = requester.current;
    if (!asking) return;
    try {
      if (await asking.accept(request)) await keys.refresh();
    } catch {
      setProblem(HANDOVER_TEXT.handoverNotVerified);
    }
  };

  useKeyRequests(keys, live, (request) => {
    const asking = requester.current;
    if (!asking || request.id !== asking.id) return;
    void asking.update(request).then((next) => {
      if (next.step === "ended") setProblem(KEY_APPROVAL_TEXT.denied);
      else setStep(next);
    });
    if (request.status === "approved") {
      approved.current = request;
      if (saidYes.current) void accept(request);
    }
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new request per attempt, once.
  useEffect(() => {
    const asking = keys.requester();
    if (!asking) return;
    requester.current = asking;
    setStep({ step: "waiting" });
    setSaid(undefined);
    saidYes.current = false;
    approved.current = undefined;
    asking.ask().catch((failure: unknown) => setProblem(describeError(failure)));
  }, [attempt]);

  const yes = () => {
    saidYes.current = true;
    setSaid("yes");
    if (approved.current) void accept(approved.current);
  };
  const no = () => {
    void requester.current?.refuse();
    setProblem(KEY_APPROVAL_TEXT.denied);
  };
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
      ) : step.step === "compare" ? (
        said === "yes" ? (
          <p role="status">Waiting for your other device to approve…</p>
        ) : (
          <div>
            <p>
              Does your other device show <span className="key-approval-code">{step.code}</span>?
            </p>
            <div className="key-approval-actions">
              <button type="button" className="btn btn-primary btn-sm" onClick={yes} aria-label={`Yes, it shows ${step.code}`}>
                Yes
              </button>
              <button type="button" className="btn btn-ghost btn-sm" onClick={no} aria-label="No, it shows another code">
                No
              </button>
            </div>
          </div>
        )
      ) : (
        <p className="key-approval-muted">On a device that can read your messages, press Compare codes.</p>
      )}
      <RecoveryUnlock keys={keys} onUnlocked={() => void requester.current?.refuse().catch(() => undefined)} />
      <StartOver keys={keys} live={live} />
    </section>
  );
}

/** Offered only when no other signed-in device holds the account's key (the server says so). */
function StartOver({ keys, live }: { keys: DeviceKeys; live: LiveConnection }) {
  const state = useQuery({ queryKey: ["keys-state"], queryFn: () => api.get(KEYS_API.keys, keysStateSchema) });
  const { refetch } = state;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(
    () =>
      live.onEvent((event) => {
        if (event.kind === "device.signed_out" || event.kind === "key.epoch_created" || event.kind === "key.request_updated")
          void refetch();
      }),
    [live, refetch],
  );
  if (state.data?.other_devices_with_current_key !== 0) return null;
  const startOver = async () => {
    setBusy(true);
    const answer = await keys.startOver().catch((failure: unknown) => ({ ok: false as const, code: describeError(failure) }));
    setBusy(false);
    setConfirming(false);
    if (!answer.ok) {
      toast.error("Another signed-in device still holds the key: approve this device from it instead.");
      void refetch();
    }
  };
  if (!confirming) {
    return (
      <div className="key-approval-actions">
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => setConfirming(true)}>
          Start over
        </button>
      </div>
    );
  }
  return (
    <div role="alertdialog" aria-label="Start over" aria-describedby="start-over-text">
      <p id="start-over-text">{KEY_APPROVAL_TEXT.startOverConfirm}</p>
      <div className="key-approval-actions">
        <button type="button" className="btn btn-danger btn-sm" disabled={busy} onClick={() => void startOver()}>
          Yes, start over
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={busy} onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function IncomingRequests({ keys, live, sessionId }: { keys: DeviceKeys; live: LiveConnection; sessionId: string }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const approvers = useRef(new Map<string, KeyApprover>());
  const [steps, setSteps] = useState<Record<string, ApprovalStep>>({});
  const setStep = (id: string, step: ApprovalStep) => setSteps((old) => ({ ...old, [id]: step }));

  const requests = useKeyRequests(keys, live, (request) => {
    const approver = approvers.current.get(request.id);
    if (!approver) return;
    void approver.update(request).then((step) => setStep(request.id, step));
  });
  const now = Date.now();
  const shown = requests.filter(
    (r) =>
      r.session_id !== sessionId &&
      r.expires_at > now &&
      (r.status === "pending" ||
        (approvers.current.has(r.id) && r.status !== "approved" && r.status !== "denied" && r.status !== "expired")),
  );
  if (shown.length === 0) return null;

  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (failure) {
      toast.error(describeError(failure));
    }
  };
  const compare = (request: KeyRequest) =>
    act(async () => {
      const approver = keys.approver();
      if (!approver) return;
      approvers.current.set(request.id, approver);
      setStep(request.id, { step: "waiting" });
      await approver.compare(request);
      // The asking device reveals as soon as it hears of the answer, often before this answer's reply is back, and news
      // of a request this side had not answered yet is not its own: take the latest copy again now that it is.
      const latest = queryClient.getQueryData<KeyRequest[]>(requestsKey)?.find((r) => r.id === request.id);
      if (latest) setStep(request.id, await approver.update(latest));
    });
  const approve = (request: KeyRequest) =>
    act(async () => {
      await approvers.current.get(request.id)?.approve();
      toast.success(`${request.device.name} can now read your messages.`);
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
        {shown.map((request) => {
          const step = steps[request.id];
          const name = request.device.name;
          return (
            <li key={request.id} aria-label={`Request from ${name}`}>
              <p>
                <strong>{name}</strong>{" "}
                <span className="key-approval-muted">
                  {request.device.browser} on {request.device.os} · IP {request.device.ip} · asked at{" "}
                  {formatStoredTime(new Date(request.created_at))}
                </span>
              </p>
              {step?.step === "compare" ? (
                <>
                  <p>
                    Approve only if {name} shows <span className="key-approval-code">{step.code}</span>
                  </p>
                  <div className="key-approval-actions">
                    <button
                      type="button"
                      className="btn btn-primary btn-sm"
                      onClick={() => void approve(request)}
                      aria-label={`Approve ${name}`}
                    >
                      Approve
                    </button>
                    <button type="button" className="btn btn-ghost btn-sm" onClick={() => void deny(request)} aria-label={`Deny ${name}`}>
                      Deny
                    </button>
                  </div>
                </>
              ) : step?.step === "failed" ? (
                <p role="alert">{HANDOVER_TEXT.keyNotVerified}</p>
              ) : step ? (
                <p role="status">Waiting for {name}…</p>
              ) : (
                <div className="key-approval-actions">
                  <button
                    type="button"
                    className="btn btn-primary btn-sm"
                    onClick={() => void compare(request)}
                    aria-label={`Compare codes with ${name}`}
                  >
                    Compare codes
                  </button>
                  <button type="button" className="btn btn-ghost btn-sm" onClick={() => void deny(request)} aria-label={`Deny ${name}`}>
                    Deny
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

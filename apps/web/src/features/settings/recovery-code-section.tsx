import { formatDisplayDate, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useLocation } from "react-router";
import { toast } from "react-toastify";
import { ConfirmDialog } from "../../components/ui/dialog.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useCopy } from "../../lib/copy-to-clipboard.ts";
import { RECOVERY_SECTION_HASH } from "../../lib/keys-state.ts";
import { isSameRecoveryCode, newRecoveryCode } from "../../lib/sealing/recovery-codes.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { recoveryQueryOptions, reloadRecovery } from "./api/recovery.ts";

export const RECOVERY_SECTION_TEXT = {
  intro:
    "If you lose every device that can read your messages, a recovery code lets a new device read them again. Keep it somewhere safe: on paper, or in a password manager.",
  noKey: "This device cannot read your messages yet, so it cannot make a recovery code here.",
  made: (when: string) => `You made your recovery code on ${when}.`,
  shownOnce: "This is your recovery code. It is shown only this once: print it or copy it somewhere safe.",
  typeBack: "To make sure you saved it, type your recovery code.",
  mismatch: "That does not match your new recovery code. Check what you saved and type it again.",
  saved: "Your recovery code was saved.",
  removeConfirm:
    "Remove your recovery code? If you then lose every device that can read your messages, what was sent can no longer be read.",
  removed: "Your recovery code was removed.",
};

const madeAt = (ms: number) => `${formatDisplayDate(formatStoredDate(new Date(ms)))} at ${formatStoredTime(new Date(ms))}`;

/** Settings' recovery code (docs/protocol/encryption.md, "Recovery code"): made on a device that can read, shown once, typed back, then saved. */
export function RecoveryCodeSection() {
  const { keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const recovery = useQuery(recoveryQueryOptions);
  const [code, setCode] = useState<string>();
  const [removing, setRemoving] = useState(false);
  const existing = recovery.data?.recovery;
  const canMake = status.state === "ready";

  const start = async () => setCode(await newRecoveryCode());

  // Opened from the recovery-code notice or the logout warning: the section, not the top of Settings, is what was asked for.
  const { hash } = useLocation();
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    if (hash === RECOVERY_SECTION_HASH && recovery.isSuccess) section.current?.scrollIntoView({ block: "start" });
  }, [hash, recovery.isSuccess]);

  return (
    <section
      ref={section}
      id={RECOVERY_SECTION_HASH.slice(1)}
      tabIndex={-1}
      className="settings-section"
      aria-labelledby="settings-recovery-title"
    >
      <h2 id="settings-recovery-title">Recovery code</h2>
      <p className="muted">{RECOVERY_SECTION_TEXT.intro}</p>
      {recovery.isPending ? <Spinner label="Loading the recovery code" /> : null}
      {recovery.isError ? <p role="alert">{describeError(recovery.error)}</p> : null}
      {existing ? <p>{RECOVERY_SECTION_TEXT.made(madeAt(existing.created_at))}</p> : null}
      {recovery.isSuccess && !canMake && !code ? <p>{RECOVERY_SECTION_TEXT.noKey}</p> : null}
      {code ? (
        <NewRecoveryCode code={code} onDone={() => setCode(undefined)} />
      ) : recovery.isSuccess && canMake ? (
        <div className="settings-actions">
          <button type="button" className="btn btn-primary btn-sm" onClick={() => void start()}>
            {existing ? "Replace recovery code" : "Create a recovery code"}
          </button>
          {existing ? (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setRemoving(true)}>
              Remove recovery code
            </button>
          ) : null}
        </div>
      ) : null}
      {removing ? <RemoveRecoveryCode onClose={() => setRemoving(false)} /> : null}
    </section>
  );
}

/** Shows the new code once with Print and Copy, then asks for it back; only a match is saved. */
function NewRecoveryCode({ code, onDone }: { code: string; onDone: () => void }) {
  const { keys } = useSessionServices();
  const queryClient = useQueryClient();
  const { state: copied, copy } = useCopy();
  const [step, setStep] = useState<"show" | "confirm">("show");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string>();
  const [working, setWorking] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!(await isSameRecoveryCode(typed, code))) return setError(RECOVERY_SECTION_TEXT.mismatch);
    setWorking(true);
    try {
      await keys.saveRecoveryCode(code);
      reloadRecovery(queryClient);
      toast.success(RECOVERY_SECTION_TEXT.saved);
      onDone();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setWorking(false);
    }
  };

  if (step === "show") {
    return (
      <div className="recovery-kit">
        <p>{RECOVERY_SECTION_TEXT.shownOnce}</p>
        <figure className="recovery-code-figure">
          <figcaption className="muted">Your recovery code</figcaption>
          <code className="recovery-code">{code}</code>
        </figure>
        <div className="settings-actions recovery-kit-actions">
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => window.print()}>
            Print
          </button>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void copy(code)}>
            Copy
          </button>
          <span role="status" className="muted">
            {copied === "copied" ? "Copied" : copied === "failed" ? "Could not copy: select the code and copy it yourself." : ""}
          </span>
        </div>
        <div className="settings-actions recovery-kit-actions">
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setStep("confirm")}>
            I saved it
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    );
  }
  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
      <p>{RECOVERY_SECTION_TEXT.typeBack}</p>
      <TextField
        label="Type your recovery code"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        className="field-input recovery-code-input"
        value={typed}
        onChange={(e) => {
          setTyped(e.target.value);
          setError(undefined);
        }}
        error={error}
      />
      <div className="settings-actions">
        <button type="submit" className="btn btn-primary btn-sm" disabled={working || typed.trim() === ""}>
          {working ? <Spinner /> : null}
          Save recovery code
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={working} onClick={() => setStep("show")}>
          Show the code again
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={working} onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function RemoveRecoveryCode({ onClose }: { onClose: () => void }) {
  const { keys } = useSessionServices();
  const queryClient = useQueryClient();
  const [working, setWorking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setWorking(true);
    try {
      await keys.removeRecoveryCode();
      reloadRecovery(queryClient);
      toast.success(RECOVERY_SECTION_TEXT.removed);
      onClose();
    } catch (failure) {
      setError(describeError(failure));
      setWorking(false);
    }
  };
  return (
    <ConfirmDialog
      title="Remove recovery code"
      confirmLabel="Yes, remove it"
      working={working}
      error={error}
      onConfirm={() => void remove()}
      onClose={onClose}
    >
      <p>{RECOVERY_SECTION_TEXT.removeConfirm}</p>
    </ConfirmDialog>
  );
}

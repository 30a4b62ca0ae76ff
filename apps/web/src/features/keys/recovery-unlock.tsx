/**
 * "Unlock with your recovery code" on a locked device (docs/protocol/encryption.md, "Locked devices and Start over" and "Recovery code"), offered when the account has one: the
 * typed code is checked on the device (its check bits catch a typo), opens the account's keys, and unlocks this device.
 */
import { RECOVERY_TEXT } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { toast } from "react-toastify";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { keysStateQuery } from "../../lib/keys-state.ts";
import type { DeviceKeys } from "../../lib/sealing/device-keys.ts";
import { recoveryRefusal } from "../../lib/sealing/recovery-codes.ts";

/** The sentence for what went wrong: the code's own check first, then what it opened, then the server's answer. */
function whyNot(error: unknown): string {
  const refusal = recoveryRefusal(error);
  if (refusal) return refusal;
  if (error instanceof ApiError && error.status === 403) return RECOVERY_TEXT.mismatch;
  return describeError(error);
}

export const RECOVERY_UNLOCK_TEXT = { open: "Unlock with your recovery code" };

export function RecoveryUnlock({ keys, onUnlocked }: { keys: DeviceKeys; onUnlocked: () => void }) {
  const state = useQuery(keysStateQuery);
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string>();
  const [working, setWorking] = useState(false);
  if (!state.data?.recovery) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setWorking(true);
    try {
      await keys.unlockWithRecoveryCode(typed);
      toast.success("This device can now read your messages.");
      onUnlocked();
    } catch (failure) {
      setError(whyNot(failure));
      setWorking(false);
    }
  };

  if (!open) {
    return (
      <div className="key-approval-actions">
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setOpen(true)}>
          {RECOVERY_UNLOCK_TEXT.open}
        </button>
      </div>
    );
  }
  return (
    <form className="key-approval-recovery" onSubmit={(e) => void submit(e)} noValidate>
      <TextField
        label="Recovery code"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        autoFocus
        className="field-input key-approval-recovery-input"
        value={typed}
        onChange={(e) => {
          setTyped(e.target.value);
          setError(undefined);
        }}
        error={error}
      />
      <div className="key-approval-actions">
        <button type="submit" className="btn btn-primary btn-sm" disabled={working || typed.trim() === ""}>
          {working ? <Spinner /> : null}
          Unlock
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={working} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { DEVICE_NAME_MAX, renameDeviceSchema } from "@daysync/shared";
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";

interface DeviceRenameFormProps {
  currentName: string;
  busy: boolean;
  /** A server-side problem with the name, shown like a local one. */
  serverError: string | undefined;
  onSave: (name: string) => void;
  onCancel: () => void;
}

/** Renames a device in place: Enter saves, Escape cancels, the name is checked as the server checks it. */
export function DeviceRenameForm({ currentName, busy, serverError, onSave, onCancel }: DeviceRenameFormProps) {
  const [name, setName] = useState(currentName);
  const [error, setError] = useState<string | undefined>();
  const input = useRef<HTMLInputElement>(null);
  // Opened by the Rename button just pressed: typing goes straight into the name.
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = renameDeviceSchema.safeParse({ name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    if (parsed.data.name === currentName) onCancel();
    else onSave(parsed.data.name);
  }

  function cancelOnEscape(event: KeyboardEvent) {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onCancel();
  }

  return (
    <form className="device-rename" onSubmit={submit} onKeyDown={cancelOnEscape} noValidate>
      <TextField
        label="Device name"
        value={name}
        maxLength={DEVICE_NAME_MAX + 20}
        autoComplete="off"
        ref={input}
        error={error ?? serverError}
        onChange={(event) => {
          setName(event.target.value);
          setError(undefined);
        }}
      />
      <div className="device-rename-actions">
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
          {busy ? <Spinner /> : null}
          Save
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

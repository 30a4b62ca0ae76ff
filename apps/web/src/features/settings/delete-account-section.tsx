import { type DeleteAccountInput, SETTINGS_TEXT } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { useNavigate } from "react-router";
import { toast } from "react-toastify";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { forgetUser } from "../../lib/offline-cache.ts";
import { meQueryKey, setMe } from "../../lib/session.ts";
import { useCurrentUser, useSessionServices } from "../../lib/session-services.ts";
import { deleteAccount } from "./api/settings.ts";

/**
 * Deletes the account after a fresh check (the password, or a new sign-in at a provider) and its email typed.
 * Everything goes at once; every device is signed out, and this one lands on /login with a notice.
 */
export function DeleteAccountSection({ hasPassword, freshCheck }: { hasPassword: boolean; freshCheck: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="settings-section settings-danger" aria-labelledby="settings-delete-title">
      <h2 id="settings-delete-title">Delete account</h2>
      <p className="muted">
        Deleting your account removes it at once and for good: your messages, days and files, your devices' sign-ins and your sign-in
        methods. Discussions you started end for everyone; you leave the ones you joined.
      </p>
      {open ? (
        <DeleteAccountForm hasPassword={hasPassword} freshCheck={freshCheck} onCancel={() => setOpen(false)} />
      ) : (
        <div className="settings-actions">
          <button type="button" className="btn btn-danger btn-sm" onClick={() => setOpen(true)}>
            Delete account…
          </button>
        </div>
      )}
    </section>
  );
}

function DeleteAccountForm({ hasPassword, freshCheck, onCancel }: { hasPassword: boolean; freshCheck: ReactNode; onCancel: () => void }) {
  const user = useCurrentUser();
  const { live, outbox } = useSessionServices();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [values, setValues] = useState({ email: "", password: "" });
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const [working, setWorking] = useState(false);
  const matches = values.email.trim().toLowerCase() === user.email;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!matches) return setErrors({ email: SETTINGS_TEXT.deleteEmailMismatch });
    if (hasPassword && !values.password) return setErrors({ password: "Enter your password." });
    setWorking(true);
    const input: DeleteAccountInput = { email: values.email, ...(hasPassword ? { password: values.password } : {}) };
    try {
      // This device is signed out with the others: its own live connection must not also say so.
      live.stop();
      outbox.stop();
      await deleteAccount(input);
    } catch (error) {
      live.start();
      outbox.start();
      setWorking(false);
      const text = describeError(error);
      if (error instanceof ApiError && (error.field === "email" || error.field === "password")) setErrors({ [error.field]: text });
      else setErrors({ form: text });
      return;
    }
    setMe(queryClient, null);
    await navigate("/login", { replace: true });
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== meQueryKey[0] });
    forgetUser(user.id);
    toast.success(SETTINGS_TEXT.accountDeleted, { autoClose: 15_000 });
  };

  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
      {hasPassword ? null : freshCheck}
      <TextField
        label={`Type your email (${user.email}) to confirm`}
        type="email"
        autoComplete="off"
        value={values.email}
        onChange={(e) => setValues((v) => ({ ...v, email: e.target.value }))}
        error={errors.email}
      />
      {hasPassword ? (
        <TextField
          label="Your password"
          type="password"
          autoComplete="current-password"
          value={values.password}
          onChange={(e) => setValues((v) => ({ ...v, password: e.target.value }))}
          error={errors.password}
        />
      ) : null}
      {errors.form ? (
        <p className="field-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <div className="settings-actions">
        <button type="submit" className="btn btn-danger btn-sm" disabled={working || !matches}>
          {working ? <Spinner /> : null}
          Delete my account forever
        </button>
        <button type="button" className="btn btn-ghost btn-sm" disabled={working} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

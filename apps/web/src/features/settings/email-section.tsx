import { type ChangeEmailInput, changeEmailSchema } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useForm } from "react-hook-form";
import { toast } from "react-toastify";
import { EmailField } from "../../components/ui/email-field.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useEmailEnabled } from "../../lib/email.ts";
import { setMe } from "../../lib/session.ts";
import { useCurrentUser } from "../../lib/session-services.ts";
import { changeEmail } from "./api/settings.ts";

/**
 * The email the account signs in with: changed with the current password (an account without one after a fresh
 * check at its provider); an email another account has is refused with the server's words.
 */
export function EmailSection({ hasPassword, freshCheck }: { hasPassword: boolean; freshCheck: ReactNode }) {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const emailEnabled = useEmailEnabled();
  const { register, handleSubmit, formState, setError, reset } = useForm<ChangeEmailInput>({
    resolver: zodResolver(changeEmailSchema),
    mode: "onTouched",
    defaultValues: { email: user.email, password: "" },
  });
  const onSubmit = handleSubmit(async (values) => {
    if (hasPassword && !values.password) {
      setError("password", { message: "Enter your current password." });
      return;
    }
    try {
      const { user: updated } = await changeEmail(hasPassword ? values : { email: values.email });
      setMe(queryClient, updated);
      reset({ email: updated.email, password: "" });
      toast.success(
        emailEnabled ? `Your email is now ${updated.email}. We sent a link there to confirm it.` : `Your email is now ${updated.email}.`,
      );
    } catch (error) {
      const text = describeError(error);
      if (error instanceof ApiError && (error.field === "email" || error.field === "password")) setError(error.field, { message: text });
      else toast.error(text);
    }
  });
  const { errors } = formState;
  return (
    <section className="settings-section" aria-labelledby="settings-email-title">
      <h2 id="settings-email-title">Email</h2>
      <p className="muted">You sign in with {user.email}.</p>
      {hasPassword ? null : freshCheck}
      <form className="settings-form" onSubmit={onSubmit} noValidate>
        <EmailField label="New email" error={errors.email?.message} {...register("email")} />
        {hasPassword ? (
          <TextField
            label="Current password"
            type="password"
            autoComplete="current-password"
            error={errors.password?.message}
            {...register("password")}
          />
        ) : null}
        <div className="settings-actions">
          <button type="submit" className="btn btn-primary btn-sm" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? <Spinner /> : null}
            Change email
          </button>
        </div>
      </form>
    </section>
  );
}

import { RESET_LINK_INVALID_MESSAGE, RESET_PASSWORD_API, type ResetPasswordForm, resetPasswordFormSchema } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useLocation } from "react-router";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { NewPasswordFields } from "../../components/ui/new-password-fields.tsx";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { ApiError, api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { AuthLayout } from "./auth-layout.tsx";

/**
 * /reset-password#TOKEN: the page of a one-time link an admin handed over. Sets a new password (the rules of
 * registration); every device of the account is signed out, this one included, so it signs in afresh.
 */
export function ResetPasswordPage() {
  const token = useLocation().hash.slice(1);
  const queryClient = useQueryClient();
  const [done, setDone] = useState(false);
  const [banner, setBanner] = useState<BannerMessage | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<ResetPasswordForm>({
    resolver: zodResolver(resetPasswordFormSchema),
    mode: "onTouched",
  });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await api.post(RESET_PASSWORD_API, { token, ...values });
      // Whoever was signed in on this browser was signed out with every other device.
      await queryClient.invalidateQueries();
      setDone(true);
    } catch (error) {
      const text = describeError(error);
      if (error instanceof ApiError && (error.field === "password" || error.field === "confirm_password")) {
        setError(error.field, { message: text });
      }
      setBanner({ text, id: Date.now() });
    }
  });
  const { errors } = formState;
  return (
    <AuthLayout>
      <h1 className="auth-title">Set a new password</h1>
      {done ? (
        <>
          <p role="status">Your password was changed, and every device of your account was signed out.</p>
          <p className="auth-switch">
            <Link to="/login">Sign in with the new password</Link>
          </p>
        </>
      ) : token ? (
        <>
          <ErrorBanner message={banner} />
          <form className="auth-form" onSubmit={onSubmit} noValidate>
            <NewPasswordFields
              password={register("password")}
              confirm={register("confirm_password")}
              errors={{ password: errors.password?.message, confirm: errors.confirm_password?.message }}
            />
            <SubmitButton working={formState.isSubmitting}>Set password</SubmitButton>
          </form>
        </>
      ) : (
        <p role="alert">{RESET_LINK_INVALID_MESSAGE}</p>
      )}
    </AuthLayout>
  );
}

import {
  APP_ROUTES,
  EMAIL_TEXT,
  RESET_LINK_INVALID_MESSAGE,
  RESET_PASSWORD_API,
  type ResetPasswordForm,
  resetPasswordFormSchema,
  responseSchemas,
} from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useLocation, useNavigate } from "react-router";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { toastLoginSuccess } from "../../components/ui/login-toasts.tsx";
import { NewPasswordFields } from "../../components/ui/new-password-fields.tsx";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { ApiError, api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { startSession } from "../../lib/session.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { SignedInQuestion, useSwitchQuestion } from "./signed-in-question.tsx";

/**
 * /reset-password#TOKEN: the page of a one-time link an admin handed over or "Forgot password?" mailed. Sets a new
 * password (the rules of registration); every other device of the account is signed out, and this one is signed in.
 * With someone signed in already, it asks before the form (issue 42): the link may be another account's.
 */
export function ResetPasswordPage() {
  const token = useLocation().hash.slice(1);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [banner, setBanner] = useState<BannerMessage | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<ResetPasswordForm>({
    resolver: zodResolver(resetPasswordFormSchema),
    mode: "onTouched",
  });
  const onSubmit = handleSubmit(async (values) => {
    try {
      const { user } = await api.post(RESET_PASSWORD_API, { token, ...values }, responseSchemas.user);
      startSession(queryClient, user, { newDevice: true });
      toastLoginSuccess();
      await navigate(APP_ROUTES.dashboard, { replace: true });
    } catch (error) {
      const text = describeError(error);
      if (error instanceof ApiError && (error.field === "password" || error.field === "confirm_password")) {
        setError(error.field, { message: text });
      }
      setBanner({ text, id: Date.now() });
    }
  });
  const { errors } = formState;
  const question = useSwitchQuestion();
  return (
    <AuthLayout>
      <h1 className="auth-title">Set a new password</h1>
      {token && question.asking ? (
        <SignedInQuestion
          user={question.asking}
          explanation={EMAIL_TEXT.resetLinkOtherAccount}
          confirmLabel={EMAIL_TEXT.resetOtherAccount}
          onConfirm={question.confirm}
        />
      ) : token && question.checking ? null : token ? (
        <>
          <p className="auth-subtitle">A new password signs out every other device of your account; this one stays signed in.</p>
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

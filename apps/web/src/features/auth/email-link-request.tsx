import { EMAIL_API, EMAIL_TEXT, type EmailLinkRequest, emailLinkRequestSchema, emailResponseSchemas } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useLocation } from "react-router";
import { EmailField } from "../../components/ui/email-field.tsx";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { carriedEmail } from "./session-routes.tsx";

interface Props {
  heading: string;
  intro: string;
  submit: string;
  /** Said once asked: the same whether or not an account has the address, as the server's answer is. */
  sent: string;
  path: string;
}

/** A page asking for the account's email, for a link the server mails (reset or sign-in); the email typed on /login is carried over. */
function EmailLinkRequestPage({ heading, intro, submit, sent, path }: Props) {
  const location = useLocation();
  const [done, setDone] = useState(false);
  const [banner, setBanner] = useState<BannerMessage | null>(null);
  const { register, handleSubmit, formState } = useForm<EmailLinkRequest>({
    resolver: zodResolver(emailLinkRequestSchema),
    mode: "onTouched",
    defaultValues: { email: carriedEmail(location.state) ?? "" },
  });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await api.post(path, values, emailResponseSchemas.requested);
      setDone(true);
    } catch (error) {
      setBanner({ text: describeError(error), id: Date.now() });
    }
  });
  return (
    <AuthLayout>
      <h1 className="auth-title">{heading}</h1>
      {done ? (
        <p role="status">{sent}</p>
      ) : (
        <>
          <p className="auth-subtitle">{intro}</p>
          <ErrorBanner message={banner} />
          <form className="auth-form" onSubmit={onSubmit} noValidate>
            <EmailField error={formState.errors.email?.message} {...register("email")} />
            <SubmitButton working={formState.isSubmitting}>{submit}</SubmitButton>
          </form>
        </>
      )}
      <p className="auth-switch">
        <Link to="/login" state={location.state}>
          {EMAIL_TEXT.backToSignIn}
        </Link>
      </p>
    </AuthLayout>
  );
}

/** /forgot-password: "Forgot password?" of /login. */
export function ForgotPasswordPage() {
  return (
    <EmailLinkRequestPage
      heading={EMAIL_TEXT.forgotHeading}
      intro={EMAIL_TEXT.forgotIntro}
      submit={EMAIL_TEXT.sendResetLink}
      sent={EMAIL_TEXT.resetSent}
      path={EMAIL_API.forgotPassword}
    />
  );
}

/** /sign-in-by-email: "Email me a sign-in link" of /login. */
export function EmailSignInPage() {
  return (
    <EmailLinkRequestPage
      heading={EMAIL_TEXT.signInLinkHeading}
      intro={EMAIL_TEXT.signInLinkIntro}
      submit={EMAIL_TEXT.sendSignInLink}
      sent={EMAIL_TEXT.signInLinkSent}
      path={EMAIL_API.signInLink}
    />
  );
}

import {
  APP_ROUTES,
  EMAIL_API,
  EMAIL_TEXT,
  emailResponseSchemas,
  responseSchemas,
  SIGN_IN_LINK_INVALID_MESSAGE,
  VERIFY_LINK_INVALID_MESSAGE,
} from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { toastLoginFailed, toastLoginSuccess } from "../../components/ui/login-toasts.tsx";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { meQueryKey, startSession } from "../../lib/session.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { SignedInQuestion, useSwitchQuestion } from "./signed-in-question.tsx";

/**
 * A mailed link's token, from the fragment (it never reaches a server log), used once and only when `ready`: the
 * effect may run twice in development, and the token leaves the address bar at once, so a reload or a shared screen
 * does not show it.
 */
function useLinkToken(use: (token: string) => Promise<void>, invalidMessage: string, ready = true): string | null {
  const { hash } = useLocation();
  const token = hash.slice(1);
  const started = useRef(false);
  const [error, setError] = useState<string | null>(token ? null : invalidMessage);
  useEffect(() => {
    if (token) window.history.replaceState(window.history.state, "", window.location.pathname);
  }, [token]);
  useEffect(() => {
    if (!token || !ready || started.current) return;
    started.current = true;
    use(token).catch((failure: unknown) => setError(describeError(failure)));
  }, [token, use, ready]);
  return error;
}

/**
 * /sign-in-link#TOKEN: a mailed sign-in link signs this device in, then the dashboard with the spec's welcome. With
 * someone signed in already, it asks first (issue 42): the link may be another account's, sent to switch this browser.
 */
export function SignInLinkPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const use = useRef(async (token: string) => {
    try {
      const { user } = await api.post(EMAIL_API.useSignInLink, { token }, responseSchemas.user);
      startSession(queryClient, user, { newDevice: true });
      toastLoginSuccess();
      await navigate(APP_ROUTES.dashboard, { replace: true });
    } catch (failure) {
      toastLoginFailed();
      throw failure;
    }
  }).current;
  const question = useSwitchQuestion();
  const error = useLinkToken(use, SIGN_IN_LINK_INVALID_MESSAGE, !question.checking && question.asking === null);
  return (
    <AuthLayout>
      <h1 className="auth-title">{EMAIL_TEXT.signInLinkHeading}</h1>
      {!error && question.asking ? (
        <SignedInQuestion
          user={question.asking}
          explanation={EMAIL_TEXT.signInLinkOtherAccount}
          confirmLabel={EMAIL_TEXT.useOtherAccount}
          onConfirm={question.confirm}
        />
      ) : error ? (
        <>
          <p role="alert">{error}</p>
          <p className="auth-switch">
            <Link to={APP_ROUTES.emailSignIn}>{EMAIL_TEXT.emailSignInLink}</Link>
          </p>
        </>
      ) : (
        <p role="status">{EMAIL_TEXT.signingIn}</p>
      )}
      <p className="auth-switch">
        <Link to={APP_ROUTES.login}>{EMAIL_TEXT.backToSignIn}</Link>
      </p>
    </AuthLayout>
  );
}

/** /verify-email#TOKEN: a mailed verification link confirms the address; signed in or not. */
export function VerifyEmailPage() {
  const queryClient = useQueryClient();
  const [verified, setVerified] = useState<string | null>(null);
  const use = useRef(async (token: string) => {
    const { email } = await api.post(EMAIL_API.verify, { token }, emailResponseSchemas.verified);
    await queryClient.invalidateQueries({ queryKey: meQueryKey });
    setVerified(email);
  }).current;
  const error = useLinkToken(use, VERIFY_LINK_INVALID_MESSAGE);
  return (
    <AuthLayout>
      <h1 className="auth-title">{EMAIL_TEXT.verifyHeading}</h1>
      {error ? (
        <p role="alert">{error}</p>
      ) : verified ? (
        <p role="status">
          {EMAIL_TEXT.verified} ({verified})
        </p>
      ) : (
        <p role="status">{EMAIL_TEXT.verifying}</p>
      )}
      <p className="auth-switch">
        <Link to={APP_ROUTES.dashboard}>Go to your dashboard</Link>
      </p>
    </AuthLayout>
  );
}

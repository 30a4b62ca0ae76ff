import { APP_ROUTES, EMAIL_TEXT, type LoginInput, loginSchema, REGISTRATION_TEXT, TEXT } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { type ComponentType, type MouseEvent, Suspense, useEffect, useId, useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useLocation, useNavigate } from "react-router";
import { EmailField } from "../../components/ui/email-field.tsx";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { QrIcon } from "../../components/ui/icons.tsx";
import { Spinner, SubmitButton } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useEmailEnabled } from "../../lib/email.ts";
import { useSiteConfig } from "../../lib/site-config.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { ProviderButtons, ProviderFailure, useProviderFailure, useProviders } from "./provider-buttons.tsx";
import { carriedEmail, returnPath, returnTarget } from "./session-routes.tsx";
import { useSignIn } from "./use-auth-mutations.ts";

export interface ConnectedDevicePanelProps {
  id: string;
  onClose: () => void;
}

/** The sign-in form; the panel of 'Sign in using connected device' is given by app/ (it is the pairing feature). */
export function LoginPage({ ConnectedDevicePanel }: { ConnectedDevicePanel: ComponentType<ConnectedDevicePanelProps> }) {
  const signIn = useSignIn();
  const navigate = useNavigate();
  const location = useLocation();
  const panelId = useId();
  const [banner, setBanner] = useState<BannerMessage | null>(null);
  const [panelOpen, setPanelOpen] = useState(false);
  const hydrated = useHydrated();
  const { providers, settled } = useProviders();
  const providerFailure = useProviderFailure(providers, settled, hydrated);
  const emailEnabled = useEmailEnabled();
  const registration = useSiteConfig()?.registration;
  const { register, handleSubmit, formState, setValue, setFocus, getValues } = useForm<LoginInput>({
    resolver: zodResolver(loginSchema),
    mode: "onTouched",
    // No default values: the fields start from the page, so what was typed before hydration is kept.
  });
  // From the register form's "Sign in instead": its email is filled in, and the password is next.
  const emailFromRegister = carriedEmail(location.state);
  useEffect(() => {
    if (!emailFromRegister) return;
    setValue("email", emailFromRegister);
    setFocus("password");
  }, [emailFromRegister, setValue, setFocus]);

  const onSubmit = handleSubmit(async (values) => {
    try {
      await signIn.mutateAsync(values);
      await navigate(returnPath(location.state), { replace: true });
    } catch (error) {
      setBanner({ text: describeError(error), id: Date.now() });
    }
  });
  const working = formState.isSubmitting;
  const carryEmail = (event: MouseEvent, to: string) => {
    event.preventDefault();
    void navigate(to, { state: { ...(location.state as object | null), email: getValues("email") } });
  };

  return (
    <AuthLayout
      aside={
        panelOpen ? (
          <Suspense fallback={<Spinner />}>
            <ConnectedDevicePanel id={panelId} onClose={() => setPanelOpen(false)} />
          </Suspense>
        ) : null
      }
    >
      <h1 className="auth-title">{TEXT.loginHeading}</h1>
      <p className="auth-subtitle">Welcome back. Your messages are waiting on every device.</p>
      {/* Only after hydration: the page is rendered at build time, without the state that says where it returns. */}
      {hydrated && returnTarget(location.state)?.startsWith("/discussions/join/") ? (
        <p className="auth-subtitle" role="status">
          Sign in, or create an account, to join the discussion you were invited to.
        </p>
      ) : null}
      <ErrorBanner message={banner} />
      <ProviderFailure message={providerFailure} />
      <form className="auth-form" onSubmit={onSubmit} noValidate>
        <EmailField error={formState.errors.email?.message} {...register("email")} />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          placeholder="Your password"
          error={formState.errors.password?.message}
          {...register("password")}
        />
        <SubmitButton working={working}>{TEXT.signIn}</SubmitButton>
      </form>
      {emailEnabled ? (
        <p className="auth-email-links">
          {/* The email typed here goes along, so the next page need not ask for it again. */}
          <Link to={APP_ROUTES.forgotPassword} onClick={(e) => carryEmail(e, APP_ROUTES.forgotPassword)}>
            {EMAIL_TEXT.forgotPassword}
          </Link>
          <Link to={APP_ROUTES.emailSignIn} onClick={(e) => carryEmail(e, APP_ROUTES.emailSignIn)}>
            {EMAIL_TEXT.emailSignInLink}
          </Link>
        </p>
      ) : null}
      <p className="auth-or">{TEXT.or}</p>
      <button
        type="button"
        className="btn btn-secondary btn-block"
        aria-expanded={panelOpen}
        aria-controls={panelId}
        disabled={!hydrated}
        onClick={() => setPanelOpen((open) => !open)}
      >
        <QrIcon size={18} />
        {TEXT.connectedDevice}
      </button>
      <ProviderButtons providers={providers} returnTo={returnPath(location.state)} />
      {registration === "closed" ? (
        <p className="auth-switch" role="note">
          {REGISTRATION_TEXT.loginClosed}
        </p>
      ) : (
        <p className="auth-switch">
          New to Daysync?{" "}
          <Link to="/register" state={location.state}>
            {TEXT.registerLink}
          </Link>
          {registration === "invite" ? (
            <span className="auth-registration-note" role="note">
              {" "}
              {REGISTRATION_TEXT.loginInviteOnly}
            </span>
          ) : null}
        </p>
      )}
    </AuthLayout>
  );
}

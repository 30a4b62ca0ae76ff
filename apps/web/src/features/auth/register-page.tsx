import { INVITE_FRAGMENT, REGISTRATION_TEXT, type RegisterInput, registerFormSchema, TEXT } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useLocation, useNavigate } from "react-router";
import { EmailField } from "../../components/ui/email-field.tsx";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { NewPasswordFields } from "../../components/ui/new-password-fields.tsx";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useSiteConfig } from "../../lib/site-config.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { ProviderButtons, useProviders } from "./provider-buttons.tsx";
import { type ReturnState, returnPath } from "./session-routes.tsx";
import { useRegister } from "./use-auth-mutations.ts";

const FIELDS = ["name", "email", "password", "confirm_password"] as const;
type Field = (typeof FIELDS)[number];
const isField = (name: string | undefined): name is Field => FIELDS.some((f) => f === name);

export function RegisterPage() {
  const registerAccount = useRegister();
  const navigate = useNavigate();
  const location = useLocation();
  const [banner, setBanner] = useState<BannerMessage | null>(null);
  const { providers } = useProviders();
  // An invite link opens this page with `#invite=…`; the server says whether one is needed (REGISTRATION).
  const invite = new URLSearchParams(location.hash.slice(1)).get(INVITE_FRAGMENT) ?? undefined;
  const registration = useSiteConfig()?.registration;
  const refusal =
    registration === "closed" ? REGISTRATION_TEXT.closed : registration === "invite" && !invite ? REGISTRATION_TEXT.inviteRequired : null;
  // The email an account already has: the form offers to sign in with it instead.
  const [takenEmail, setTakenEmail] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, watch } = useForm<RegisterInput>({
    resolver: zodResolver(registerFormSchema),
    mode: "onTouched",
    // No default values: the fields start from the page, so what was typed before hydration is kept.
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      await registerAccount.mutateAsync({ ...values, invite: registration === "invite" ? invite : undefined });
      // Invited to a discussion: back to its join screen; otherwise the first-run welcome.
      await navigate(returnPath(location.state, "/dashboard/home"), { replace: true });
    } catch (error) {
      const text = describeError(error);
      if (error instanceof ApiError && isField(error.field)) setError(error.field, { message: text });
      // An account has the address (confirmed or not): the form offers to sign in instead; the banner says how.
      if (error instanceof ApiError && (error.code === "email_taken" || error.code === "email_unconfirmed")) setTakenEmail(values.email);
      setBanner({ text, id: Date.now() });
    }
  });
  const working = formState.isSubmitting;
  const { errors } = formState;
  const email = watch("email");
  const signInState: ReturnState = { ...(location.state as ReturnState | null), email: takenEmail ?? undefined };

  return (
    <AuthLayout>
      <h1 className="auth-title">{TEXT.registerHeading}</h1>
      <p className="auth-subtitle">Free forever plan. No card, no phone number.</p>
      <ErrorBanner message={banner} />
      {refusal ? (
        <p className="auth-refusal" role="alert">
          {refusal}
        </p>
      ) : null}
      {registration === "invite" && invite ? <p className="auth-invited">You were invited: this link makes one account.</p> : null}
      <form className="auth-form" onSubmit={onSubmit} noValidate hidden={refusal !== null}>
        <TextField label="Name" autoComplete="name" placeholder="Your name" error={errors.name?.message} {...register("name")} />
        <EmailField error={errors.email?.message} {...register("email")} />
        {takenEmail !== null && takenEmail === email ? (
          <p className="auth-taken">
            Is it yours?{" "}
            <Link to="/login" state={signInState}>
              Sign in instead
            </Link>
          </p>
        ) : null}
        <NewPasswordFields
          label="Password"
          placeholder="Your password"
          password={register("password")}
          confirm={register("confirm_password")}
          errors={{ password: errors.password?.message, confirm: errors.confirm_password?.message }}
        />
        <SubmitButton working={working}>{TEXT.register}</SubmitButton>
      </form>
      {providers.length > 0 && refusal === null ? (
        <>
          <p className="auth-or">{TEXT.or}</p>
          <ProviderButtons
            providers={providers}
            returnTo={returnPath(location.state, "/dashboard/home")}
            invite={registration === "invite" ? invite : undefined}
          />
        </>
      ) : null}
      <p className="auth-switch">
        <Link to="/login" state={location.state}>
          {TEXT.haveMembership}
        </Link>
      </p>
    </AuthLayout>
  );
}

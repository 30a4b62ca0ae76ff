import { EMAIL_API, EMAIL_TEXT, emailResponseSchemas } from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { Spinner } from "../../components/ui/spinner.tsx";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useEmailEnabled } from "../../lib/email.ts";
import { useCurrentUser } from "../../lib/session-services.ts";
import "./unverified-email-banner.css";

/**
 * A quiet line over the dashboard while the account's address is not verified (only on a server that sends mail):
 * the account works as any other meanwhile. "Resend" mails a new link; opening it removes the line on every device.
 */
export function UnverifiedEmailBanner() {
  const user = useCurrentUser();
  const emailEnabled = useEmailEnabled();
  const resend = useMutation({ mutationFn: () => api.post(EMAIL_API.resendVerification, {}, emailResponseSchemas.requested) });
  // Absent (an older server) counts as verified: no banner.
  if (!emailEnabled || user.email_verified !== false) return null;
  return (
    <section className="unverified-email" aria-label="Email not confirmed">
      <p>{EMAIL_TEXT.unverifiedBanner.replace("{email}", user.email)}</p>
      {resend.isSuccess ? (
        <p role="status">{EMAIL_TEXT.resent}</p>
      ) : (
        <button type="button" className="btn btn-ghost btn-sm" disabled={resend.isPending} onClick={() => resend.mutate()}>
          {resend.isPending ? <Spinner /> : null}
          {EMAIL_TEXT.resend}
        </button>
      )}
      {resend.isError ? <p role="alert">{describeError(resend.error)}</p> : null}
    </section>
  );
}

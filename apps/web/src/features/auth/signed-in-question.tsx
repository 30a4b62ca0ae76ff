import { APP_ROUTES, EMAIL_TEXT, type User } from "@daysync/shared";
import { useEffect, useId, useState } from "react";
import { useNavigate } from "react-router";
import { useMe } from "./use-me.ts";

/**
 * Who was signed in when a link's page opened, asked once: `checking` until the session answers, then `asking` is
 * that person (null: nobody, or `confirm` was called). Decided once, so the link's own sign-in does not ask again.
 */
export function useSwitchQuestion(): { checking: boolean; asking: User | null; confirm: () => void } {
  const me = useMe();
  const [decided, setDecided] = useState<{ asking: User | null } | null>(null);
  useEffect(() => {
    if (decided === null && !me.isPending) setDecided({ asking: me.data ?? null });
  }, [decided, me.isPending, me.data]);
  return { checking: decided === null, asking: decided?.asking ?? null, confirm: () => setDecided({ asking: null }) };
}

/**
 * Asked before a mailed link signs in a browser that already has someone signed in (issue 42): anyone can mail a link
 * to their own account, and used without a question it would switch this browser to that account (login CSRF).
 * No keeps the person signed in and drops the link; yes uses it.
 */
export function SignedInQuestion({
  user,
  explanation,
  confirmLabel,
  onConfirm,
}: {
  user: User;
  explanation: string;
  confirmLabel: string;
  onConfirm: () => void;
}) {
  const navigate = useNavigate();
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} className="auth-subtitle">
        {EMAIL_TEXT.switchAccountHeading}
      </h2>
      <p>{EMAIL_TEXT.signedInAs.replace("{name}", user.name).replace("{email}", user.email)}</p>
      <p>{explanation}</p>
      <div className="auth-form">
        <button type="button" className="btn btn-primary btn-block" onClick={() => void navigate(APP_ROUTES.dashboard, { replace: true })}>
          {EMAIL_TEXT.staySignedIn}
        </button>
        <button type="button" className="btn btn-secondary btn-block" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </section>
  );
}

/** /admin's invite links (REGISTRATION=invite): one-time links to register, shown once with Copy. */
import { INVITE_TTL_MS } from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useCopy } from "../../lib/copy-to-clipboard.ts";
import { dateTimeOf } from "./admin-dates.ts";
import { createInvite } from "./api/admin.ts";

const DAYS = INVITE_TTL_MS / (24 * 60 * 60 * 1000);

export function InviteLink() {
  const { state, copy } = useCopy();
  const make = useMutation({ mutationFn: createInvite });
  return (
    <section className="admin-section" aria-labelledby="admin-invites">
      <h2 id="admin-invites">Invite links</h2>
      <p className="muted">
        A link makes one account on this server, even where registration is by invitation only, and works for {DAYS} days. Hand it over
        yourself, by a way you trust.
      </p>
      <div className="admin-invite-link">
        <div>
          <button type="button" className="btn btn-primary btn-sm" disabled={make.isPending} onClick={() => make.mutate()}>
            Create invite link
          </button>
        </div>
        {make.isError ? <p role="alert">{describeError(make.error)}</p> : null}
        {make.data ? (
          <>
            <TextField label="Invite link" readOnly value={make.data.url} onFocus={(e) => e.currentTarget.select()} />
            <p className="muted">Valid until {dateTimeOf(make.data.expires_at)}, once. It is not shown again.</p>
            <div>
              <button type="button" className="btn btn-secondary btn-sm" onClick={() => copy(make.data.url)}>
                Copy invite link
              </button>
              <span className="visually-hidden" role="status">
                {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
              </span>
            </div>
          </>
        ) : null}
      </div>
    </section>
  );
}

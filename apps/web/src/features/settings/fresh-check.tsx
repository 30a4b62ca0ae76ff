import { useMutation, useQuery } from "@tanstack/react-query";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useNow } from "../../lib/use-now.ts";
import { confirmationQueryOptions, startConfirm } from "./api/settings.ts";
import { linkedIdentitiesQueryOptions } from "./api/sign-in-methods.ts";

const timeOf = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });

/**
 * For an account without a password: "Confirm with <provider>" signs in there again, and this device may then
 * set a password or delete the account for 10 minutes. Says until when once confirmed.
 */
export function FreshCheck() {
  const confirmation = useQuery(confirmationQueryOptions);
  const linked = useQuery(linkedIdentitiesQueryOptions);
  const now = useNow();
  const confirm = useMutation({
    mutationFn: startConfirm,
    onSuccess: ({ redirect }) => window.location.assign(redirect),
  });
  const until = confirmation.data?.confirmed_until;
  if (until && until > now) {
    return (
      <p className="settings-confirmed" role="status">
        Confirmed: until {timeOf(until)} you can do this from this device.
      </p>
    );
  }
  const providers = [...new Map((linked.data?.identities ?? []).map((i) => [i.provider, i.label])).entries()];
  return (
    <div className="settings-fresh-check">
      <p className="muted">First confirm it is you by signing in again with your provider.</p>
      <div className="settings-actions">
        {providers.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className="btn btn-secondary btn-sm"
            disabled={confirm.isPending}
            onClick={() => confirm.mutate(id)}
          >
            {confirm.isPending && confirm.variables === id ? <Spinner /> : null}
            Confirm with {label}
          </button>
        ))}
      </div>
      {confirm.isError ? (
        <p className="field-error" role="alert">
          {describeError(confirm.error)}
        </p>
      ) : null}
    </div>
  );
}

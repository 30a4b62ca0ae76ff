import { type ProviderListItem, providerSignInMessage } from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { toast } from "react-toastify";
import { KeyIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useNow } from "../../lib/use-now.ts";
import { confirmationQueryOptions, reloadConfirmation } from "./api/settings.ts";
import {
  linkedIdentitiesQueryOptions,
  offeredProvidersQueryOptions,
  reloadSignInMethods,
  startLink,
  unlinkIdentity,
} from "./api/sign-in-methods.ts";
import { FreshCheck } from "./fresh-check.tsx";

/**
 * Sign-in methods: the password and the linked providers, linking one after a fresh check (the password entered
 * again, or without one a new sign-in at a linked provider), unlinking any but the last way in. Shown where the server offers providers (or the account has one linked).
 */
export function SignInMethods() {
  const queryClient = useQueryClient();
  const offered = useQuery(offeredProvidersQueryOptions);
  const linked = useQuery(linkedIdentitiesQueryOptions);
  const [linking, setLinking] = useState<ProviderListItem | null>(null);
  useLinkOutcome(offered.data);
  const unlink = useMutation({
    mutationFn: unlinkIdentity,
    onSuccess: () => reloadSignInMethods(queryClient),
    onError: (error) => toast.error(describeError(error)),
  });

  if (!offered.data || !linked.data || (offered.data.length === 0 && linked.data.identities.length === 0)) return null;
  const { identities, has_password } = linked.data;
  const lastWayIn = !has_password && identities.length === 1;
  const unlinked = offered.data.filter((p) => !identities.some((i) => i.provider === p.id));

  return (
    <section className="sign-in-methods" aria-labelledby="sign-in-methods-title">
      <h2 id="sign-in-methods-title">Sign-in methods</h2>
      <ul className="sign-in-method-list">
        <li>
          <KeyIcon size={18} />
          <span>Password: {has_password ? "set" : "none (this account was made through a provider)"}</span>
        </li>
        {identities.map((identity) => (
          <li key={identity.id}>
            <KeyIcon size={18} />
            <span>
              {identity.label}
              {identity.email ? <span className="muted"> · {identity.email}</span> : null}
            </span>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              disabled={lastWayIn || unlink.isPending}
              title={lastWayIn ? "The only way to sign in to this account" : undefined}
              onClick={() => unlink.mutate(identity.id)}
            >
              Unlink {identity.label}
            </button>
          </li>
        ))}
      </ul>
      {unlinked.length > 0 && has_password ? (
        <div className="settings-actions">
          {unlinked.map((provider) => (
            <button key={provider.id} type="button" className="btn btn-secondary btn-sm" onClick={() => setLinking(provider)}>
              Link {provider.label}
            </button>
          ))}
        </div>
      ) : null}
      {unlinked.length > 0 && !has_password ? <LinkAfterFreshCheck providers={unlinked} /> : null}
      {linking ? <LinkForm provider={linking} onCancel={() => setLinking(null)} /> : null}
    </section>
  );
}

/** An account without a password links another provider once this device is freshly checked at a linked one. */
function LinkAfterFreshCheck({ providers }: { providers: ProviderListItem[] }) {
  const confirmation = useQuery(confirmationQueryOptions);
  const now = useNow();
  const link = useMutation({
    mutationFn: (providerId: string) => startLink(providerId),
    onSuccess: ({ redirect }) => window.location.assign(redirect),
  });
  const until = confirmation.data?.confirmed_until;
  if (!until || until <= now) return <FreshCheck />;
  return (
    <>
      <div className="settings-actions">
        {providers.map((provider) => (
          <button
            key={provider.id}
            type="button"
            className="btn btn-secondary btn-sm"
            disabled={link.isPending}
            onClick={() => link.mutate(provider.id)}
          >
            {link.isPending && link.variables === provider.id ? <Spinner /> : null}
            Link {provider.label}
          </button>
        ))}
      </div>
      {link.isError ? (
        <p className="field-error" role="alert">
          {describeError(link.error)}
        </p>
      ) : null}
    </>
  );
}

/** The password again, then off to the provider; it comes back to this page. */
function LinkForm({ provider, onCancel }: { provider: ProviderListItem; onCancel: () => void }) {
  const [password, setPassword] = useState("");
  const link = useMutation({
    mutationFn: () => startLink(provider.id, password),
    onSuccess: ({ redirect }) => window.location.assign(redirect),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password) link.mutate();
  };
  return (
    <form className="sign-in-method-link" onSubmit={submit}>
      <TextField
        label={`Enter your password to link ${provider.label}`}
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={link.isError ? describeError(link.error) : undefined}
      />
      <div className="settings-actions">
        <button type="submit" className="btn btn-primary btn-sm" disabled={!password || link.isPending}>
          {link.isPending ? <Spinner /> : null}
          Continue with {provider.label}
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * Back from the provider: `?linked=<id>` (a link), `?confirmed=<id>` (a fresh check) or `?error=<code>&provider=<id>`,
 * said once, then cleaned from the address.
 */
function useLinkOutcome(providers: ProviderListItem[] | undefined) {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!providers) return;
    const query = new URLSearchParams(location.search);
    const linkedId = query.get("linked");
    const confirmedId = query.get("confirmed");
    const error = query.get("error");
    if (!linkedId && !confirmedId && !error) return;
    const label = providers.find((p) => p.id === (linkedId ?? confirmedId ?? query.get("provider")))?.label;
    if (linkedId) toast.success(`${label ?? "The provider"} is linked: you can sign in with it now.`);
    else if (confirmedId)
      toast.success(
        `Confirmed with ${label ?? "your provider"}. For the next 10 minutes this device can set a password, link another provider or delete the account.`,
      );
    else if (error) toast.error(providerSignInMessage(error, label) ?? "The provider could not be linked.");
    reloadSignInMethods(queryClient);
    reloadConfirmation(queryClient);
    void navigate({ pathname: location.pathname, search: "" }, { replace: true });
  }, [providers, location, navigate, queryClient]);
}

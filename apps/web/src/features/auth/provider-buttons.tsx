import {
  IDENTITY_API,
  type ProviderIcon,
  type ProviderListItem,
  providerSignInMessage,
  providersResponseSchema,
  TEXT,
} from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { AppleIcon, GithubIcon, GoogleIcon, KeyIcon, MicrosoftIcon } from "../../components/ui/icons.tsx";
import { toastLoginFailed } from "../../components/ui/login-toasts.tsx";
import { api } from "../../lib/api-client.ts";

const ICONS: Record<ProviderIcon, () => ReactNode> = {
  google: () => <GoogleIcon />,
  github: () => <GithubIcon />,
  microsoft: () => <MicrosoftIcon />,
  apple: () => <AppleIcon />,
  key: () => <KeyIcon size={18} />,
};

/** The identity providers this server offers (none: no buttons); `settled` once the server answered or failed. */
export function useProviders(): { providers: ProviderListItem[]; settled: boolean } {
  const query = useQuery({
    queryKey: ["auth", "providers"],
    queryFn: async () => (await api.get(IDENTITY_API.providers, providersResponseSchema)).providers,
    staleTime: 5 * 60_000,
  });
  return { providers: query.data ?? [], settled: !query.isPending };
}

/**
 * A failed sign-in through a provider comes back as `?error=<code>&provider=<id>`: its words (with the provider's
 * label), shown until the person leaves, and the spec's 'Login failed / Try again'. The address is then cleaned,
 * so a reload does not say it again.
 */
export function useProviderFailure(providers: ProviderListItem[], settled: boolean, enabled: boolean): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled || !settled) return;
    const query = new URLSearchParams(location.search);
    const code = query.get("error");
    if (!code) return;
    const label = providers.find((p) => p.id === query.get("provider"))?.label;
    setMessage(providerSignInMessage(code, label) ?? `${TEXT.loginFailedTitle}. ${TEXT.loginFailedBody}.`);
    toastLoginFailed();
    void navigate({ pathname: location.pathname, search: "" }, { replace: true, state: location.state });
  }, [enabled, settled, providers, location, navigate]);
  return message;
}

/** The readable reason of a failed provider sign-in; stays until the person leaves the page. */
export function ProviderFailure({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="error-banner" role="alert">
      <span>{message}</span>
    </div>
  );
}

/**
 * A "Continue with …" link per provider: a whole-page visit to the server, which sends the browser to the
 * provider and, signed in, back to `returnTo`. `invite`: the register page's invite link, which a sign-up through
 * the provider uses up.
 */
export function ProviderButtons({ providers, returnTo, invite }: { providers: ProviderListItem[]; returnTo: string; invite?: string }) {
  if (providers.length === 0) return null;
  const query = new URLSearchParams({ return: returnTo, ...(invite ? { invite } : {}) });
  return (
    <div className="auth-providers">
      {providers.map((provider) => (
        <a key={provider.id} className="btn btn-secondary btn-block" href={`${IDENTITY_API.start(provider)}?${query}`}>
          {ICONS[provider.icon]()}
          Continue with {provider.label}
        </a>
      ))}
    </div>
  );
}

/**
 * Sign-in through identity providers (issue 26): OpenID Connect providers by id and GitHub. The browser goes to a
 * provider's `start` path and comes back through its callback, which sends it on to where it was going, or to
 * /login with `?error=<code>&provider=<id>` (the page words the code with the provider's label).
 */
import { z } from "zod";
import { ACCOUNT_DISABLED_MESSAGE } from "./admin.ts";
import { REGISTRATION_TEXT } from "./site.ts";

export const IDENTITY_API = {
  /** GET, public: the configured providers, for the sign-in buttons. */
  providers: "/api/auth/providers",
  /** GET: leaves for the provider's sign-in page; `return` is where to go afterwards (a path of this app). */
  start: (provider: ProviderListItem) =>
    provider.kind === "github" ? "/api/auth/github/start" : `/api/auth/oidc/${encodeURIComponent(provider.id)}/start`,
  /** GET, signed in: the account's linked identities and whether it has a password. */
  identities: "/api/auth/identities",
  /** DELETE, signed in: unlinks one, unless it is the last way to sign in. */
  identity: (id: string) => `/api/auth/identities/${encodeURIComponent(id)}`,
  /** POST, signed in, with the password: starts linking the provider; answers where to send the browser. */
  link: (providerId: string) => `/api/auth/link/${encodeURIComponent(providerId)}`,
} as const;

/** Set (not HttpOnly, one minute) by a successful provider sign-in: the app shows 'Login success / Welcome' and clears it. */
export const SIGNED_IN_NOTICE_COOKIE = "daysync_signed_in";

export const providerIconSchema = z.enum(["google", "github", "microsoft", "apple", "key"]);
export type ProviderIcon = z.infer<typeof providerIconSchema>;

export const providerListItemSchema = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(["oidc", "github"]),
  icon: providerIconSchema,
});
export type ProviderListItem = z.infer<typeof providerListItemSchema>;

export const linkedIdentitySchema = z.object({
  id: z.string(),
  provider: z.string(),
  label: z.string(),
  email: z.string(),
  created_at: z.number(),
});
export type LinkedIdentity = z.infer<typeof linkedIdentitySchema>;

/** The password again; an account without one sends none and needs a fresh check at a provider instead. */
export const linkProviderSchema = z.object({
  password: z.string({ error: "Enter a password" }).min(1, "Enter a password").max(256).optional(),
});

/** Why a sign-in through a provider did not happen; `{label}` is the provider's. */
export const PROVIDER_SIGN_IN_ERRORS = {
  unknown_provider: "That sign-in method is not available on this server.",
  provider_unavailable: "{label} cannot be reached right now. Try again later, or sign in with your email and password.",
  provider_refused: "{label} did not complete the sign-in. Try again, or sign in with your email and password.",
  cancelled: "The sign-in at {label} was cancelled.",
  flow_expired: "This sign-in took too long or was already used. Start again.",
  flow_mismatch: "This sign-in was started in another window or browser. Start again here.",
  signup_closed: "No Daysync account uses this {label} sign-in, and new accounts cannot be made with {label} here.",
  registration_closed:
    "No Daysync account uses this {label} sign-in, and this server does not take new accounts without an invite. Ask its owner for an invite link, or sign in with an existing account.",
  invite_invalid: REGISTRATION_TEXT.inviteInvalid,
  email_unverified: "{label} has not verified your email address, so no account can be made with it.",
  domain_not_allowed: "Accounts with this email domain cannot be made through {label} here.",
  account_exists: "An account with this email already exists. Sign in as usual, then link {label} from Settings (Sign-in methods).",
  already_linked: "This {label} sign-in is already linked to another Daysync account.",
  confirm_mismatch: "That {label} sign-in is not linked to this account. Confirm with the one linked here.",
  account_disabled: ACCOUNT_DISABLED_MESSAGE,
} as const;
export type ProviderSignInError = keyof typeof PROVIDER_SIGN_IN_ERRORS;

/** The readable message of an error code from /login's query, or undefined for a code we do not know. */
export function providerSignInMessage(code: string, label: string | undefined): string | undefined {
  const template = (PROVIDER_SIGN_IN_ERRORS as Record<string, string>)[code];
  return template?.replaceAll("{label}", label ?? "The provider");
}

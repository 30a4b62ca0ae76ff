/**
 * Sign-in and linking through identity providers (issue 26). A flow's state, nonce and PKCE verifier live in a
 * one-time database record (any process can finish what another began), found by a random id the starting browser
 * holds in a cookie, so a callback only completes in the browser that started it. An identity is (issuer,
 * subject) and is never matched to an account by email: an unknown identity whose email has an account is refused.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  inviteTokenSchema,
  type LinkedIdentity,
  type ProviderIcon,
  type ProviderListItem,
  type ProviderSignInError,
  providerSignInMessage,
  registerFormSchema,
  SETTINGS_ROUTE,
  type User,
} from "@daysync/shared";
import type { FastifyBaseLogger } from "fastify";
import { z } from "zod";
import type { Clock } from "../../clock.ts";
import type { IdentityConfig, ProviderConfig } from "../../config/identity-providers.ts";
import { AppError, conflict, notFound } from "../../http/errors.ts";
import type { AccountsService, DeviceInfo, FreshCheck, SessionsRepository } from "../accounts/index.ts";
import type { DevicesService } from "../devices/index.ts";
import { REGISTRATION_REFUSALS } from "../invites/index.ts";
import { createGithubAdapter } from "./github.adapter.ts";
import type { IdentitiesRepository } from "./identities.repository.ts";
import { createOidcAdapter } from "./oidc.adapter.ts";
import { type FlowSecrets, type ProviderAdapter, ProviderFailure, type ProviderProfile } from "./provider.ts";

/** How long a started sign-in may take at the provider. */
export const FLOW_LIFETIME_MS = 10 * 60 * 1000;
const FALLBACK_RETURN = "/dashboard";
/** Where linking and a fresh check come back to: the page with the list of sign-in methods. */
export const LINK_RETURN = SETTINGS_ROUTE;

/** A sign-in that did not happen, named for /login to word. */
export class SignInFailure extends Error {
  constructor(
    readonly code: ProviderSignInError,
    readonly providerId: string,
    /** Set when the flow was a link: the failure is shown on that page instead of /login. */
    readonly linkReturn?: string,
  ) {
    super(code);
  }
}

export type FlowOutcome =
  | { kind: "signed_in"; user: User; session: { id: string; token: string }; returnTo: string }
  | { kind: "linked"; returnTo: string }
  | { kind: "confirmed"; returnTo: string };

const random = () => randomBytes(32).toString("base64url");
const nameSchema = registerFormSchema.shape.name;
const emailSchema = z.email().max(254);

/**
 * Where to send the person afterwards: a path of this app only. `//evil`, `/\evil`, absolute URLs, anything
 * that would leave this origin, and the API go to the dashboard. What is checked is the path after normalising,
 * the one that is sent: `/.//evil`, `/%2e//evil` and `/a/..//evil` all normalise to `//evil` (issue 42).
 */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048 || !value.startsWith("/")) return FALLBACK_RETURN;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (value.includes("\\") || /[\u0000-\u001f\u007f]/.test(value)) return FALLBACK_RETURN;
  const base = "http://daysync.invalid";
  const url = new URL(value, base);
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== base || url.pathname.startsWith("//") || url.pathname.startsWith("/api/")) return FALLBACK_RETURN;
  // The path as a browser will read it from Location must stay on this origin too.
  if (new URL(path, base).origin !== base) return FALLBACK_RETURN;
  return path;
}

function iconOf(provider: ProviderConfig): ProviderIcon {
  if (provider.kind === "github") return "github";
  const host = new URL(provider.issuer).hostname;
  if (host === "accounts.google.com") return "google";
  if (host === "login.microsoftonline.com" || host === "login.live.com") return "microsoft";
  if (host === "appleid.apple.com") return "apple";
  return "key";
}

export const callbackPath = (provider: ProviderConfig) =>
  provider.kind === "github" ? "/api/auth/github/callback" : `/api/auth/oidc/${provider.id}/callback`;

export function createIdentitiesService(deps: {
  config: IdentityConfig;
  clock: Clock;
  accounts: AccountsService;
  identities: IdentitiesRepository;
  devices: Pick<DevicesService, "announceSignIn">;
  /** Where a fresh check at a provider is kept for the session it confirms. */
  sessions: Pick<SessionsRepository, "markReauthenticated">;
  freshCheck: Pick<FreshCheck, "confirm">;
  log: FastifyBaseLogger;
}) {
  const { clock, accounts, identities, log } = deps;
  const make = (provider: ProviderConfig, redirectUri: string) =>
    provider.kind === "github" ? createGithubAdapter(provider, redirectUri) : createOidcAdapter(provider, redirectUri);
  const adapters = new Map(deps.config.providers.map((p) => [p.id, make(p, `${deps.config.publicUrl}${callbackPath(p)}`)] as const));
  const labelOf = (providerId: string) => adapters.get(providerId)?.config.label ?? providerId;

  function adapterOf(providerId: string, linkReturn?: string): ProviderAdapter {
    const adapter = adapters.get(providerId);
    if (!adapter) throw new SignInFailure("unknown_provider", providerId, linkReturn);
    return adapter;
  }

  function failureOf(error: unknown, providerId: string, linkReturn: string | undefined): never {
    if (!(error instanceof ProviderFailure)) throw error;
    log.warn({ provider: providerId, problem: error.message }, `identity provider ${providerId}: ${error.kind}`);
    const code = error.kind === "unavailable" ? "provider_unavailable" : error.kind === "cancelled" ? "cancelled" : "provider_refused";
    throw new SignInFailure(code, providerId, linkReturn);
  }

  async function start(
    providerId: string,
    returnTo: string,
    linkUserId: string | null,
    confirmSessionId: string | null = null,
    invite: string | null = null,
  ): Promise<{ flowId: string; url: string }> {
    const linkReturn = linkUserId ? LINK_RETURN : undefined;
    const adapter = adapterOf(providerId, linkReturn);
    const secrets: FlowSecrets = { state: random(), nonce: random(), codeVerifier: random() };
    const url = await adapter
      .authorizationUrl(secrets, { reauthenticate: confirmSessionId !== null })
      .catch((error: unknown) => failureOf(error, providerId, linkReturn));
    const flowId = random();
    const now = clock.now();
    await identities.startFlow(
      {
        id: flowId,
        provider: providerId,
        state: secrets.state,
        nonce: secrets.nonce,
        code_verifier: secrets.codeVerifier,
        return_to: returnTo,
        link_user_id: linkUserId,
        confirm_session_id: confirmSessionId,
        invite,
        expires_at: now + FLOW_LIFETIME_MS,
      },
      now,
    );
    return { flowId, url };
  }

  /** Signs in (or makes the account of) the identity the provider vouched for. */
  async function signInWith(
    adapter: ProviderAdapter,
    profile: ProviderProfile,
    device: DeviceInfo,
    returnTo: string,
    invite: string | undefined,
  ): Promise<FlowOutcome> {
    const provider = adapter.config;
    const known = await identities.find(profile.issuer, profile.subject);
    if (known) {
      if (await accounts.isDisabled(known.user_id)) throw new SignInFailure("account_disabled", provider.id);
      const { user, session } = await accounts.signIn(known.user_id, device);
      await deps.devices.announceSignIn(user.id, session.id);
      return { kind: "signed_in", user, session, returnTo };
    }
    const email = profile.email && emailSchema.safeParse(profile.email).success ? profile.email : undefined;
    const fail = (code: ProviderSignInError): never => {
      throw new SignInFailure(code, provider.id);
    };
    if (email && profile.emailVerified && (await accounts.idByEmail(email))) fail("account_exists");
    if (!provider.allowSignup) fail("signup_closed");
    if (!email || !profile.emailVerified) return fail("email_unverified");
    const domain = email.slice(email.lastIndexOf("@") + 1);
    if (provider.allowedDomains.length > 0 && !provider.allowedDomains.includes(domain)) fail("domain_not_allowed");
    const parsedName = nameSchema.safeParse(profile.name ?? "");
    const name = parsedName.success ? parsedName.data : email.slice(0, email.indexOf("@")).slice(0, 100) || "Daysync user";
    try {
      const { user, session } = await accounts.registerWithoutPassword(
        { name, email },
        async (trx, userId) => {
          const stored = await identities.in(trx).insertIfNew({
            id: randomUUID(),
            user_id: userId,
            provider: provider.id,
            issuer: profile.issuer,
            subject: profile.subject,
            email,
            created_at: clock.now(),
          });
          // The same identity signed up a moment ago in another request: that account is the one.
          if (!stored) fail("flow_expired");
        },
        device,
        invite,
      );
      return { kind: "signed_in", user, session, returnTo };
    } catch (error) {
      if (error instanceof AppError && error.code === "email_taken") fail("account_exists");
      // REGISTRATION: a new person cannot sign up here through a provider without a usable invite.
      if (error instanceof AppError && error.code === "invite_invalid") fail("invite_invalid");
      if (error instanceof AppError && REGISTRATION_REFUSALS.has(error.code)) fail("registration_closed");
      throw error;
    }
  }

  return {
    /** The public list for the sign-in buttons. */
    list(): ProviderListItem[] {
      return [...adapters.values()].map(({ config }) => ({ id: config.id, label: config.label, kind: config.kind, icon: iconOf(config) }));
    },

    /** Reaches each provider once at start; a problem is logged, never fatal, and tried again on use. */
    async checkAll(): Promise<void> {
      await Promise.all(
        [...adapters.values()].map((adapter) =>
          adapter.check().then(
            () => log.info({ provider: adapter.config.id }, `identity provider ${adapter.config.id} is ready`),
            (error: unknown) =>
              log.error(
                { provider: adapter.config.id, problem: error instanceof Error ? error.message : String(error) },
                `identity provider ${adapter.config.id} cannot be used now; its sign-in button will say so until it can`,
              ),
          ),
        ),
      );
    },

    /** `invite`: the register page's invite link, for a sign-up on a server that takes new accounts by invite. */
    startSignIn(providerId: string, returnTo: unknown, invite: unknown) {
      if (invite === undefined) return start(providerId, safeReturnPath(returnTo), null);
      const token = inviteTokenSchema.safeParse(invite);
      if (!token.success) throw new SignInFailure("invite_invalid", providerId);
      return start(providerId, safeReturnPath(returnTo), null, null, token.data);
    },

    /**
     * After a fresh check: the password, or, for an account without one, a provider check on this device within
     * FRESH_CHECK_MS (Settings); then starts linking the provider to the signed-in account.
     */
    async startLink(asker: { userId: string; sessionId: string }, providerId: string, password: string | undefined) {
      const { userId } = asker;
      if (!adapters.has(providerId)) throw notFound("sign-in provider");
      await deps.freshCheck.confirm(asker, password, "password", false);
      try {
        return await start(providerId, LINK_RETURN, userId);
      } catch (error) {
        // Asked with fetch, not a navigation: a JSON answer in words.
        if (!(error instanceof SignInFailure)) throw error;
        throw new AppError(502, error.code, providerSignInMessage(error.code, labelOf(providerId)) ?? error.code);
      }
    },

    /**
     * A fresh check for an account without a password (Settings): a new sign-in at one of its linked providers,
     * which marks the asking session checked (`sessions.reauthenticated_at`) and comes back to Settings.
     */
    async startConfirm(userId: string, sessionId: string, providerId: string) {
      if (!(await identities.ofUser(userId)).some((r) => r.provider === providerId)) throw notFound("linked sign-in method");
      try {
        return await start(providerId, LINK_RETURN, userId, sessionId);
      } catch (error) {
        if (!(error instanceof SignInFailure)) throw error;
        throw new AppError(502, error.code, providerSignInMessage(error.code, labelOf(providerId)) ?? error.code);
      }
    },

    /** The provider's callback: the flow of this browser's cookie, consumed once, then sign-in or link. */
    async finish(providerId: string, flowId: string | undefined, query: URLSearchParams, device: DeviceInfo): Promise<FlowOutcome> {
      const flow = flowId ? await identities.consumeFlow(flowId, clock.now()) : undefined;
      if (!flow) throw new SignInFailure("flow_expired", providerId);
      const linkReturn = flow.link_user_id ? flow.return_to : undefined;
      if (flow.provider !== providerId || query.get("state") !== flow.state)
        throw new SignInFailure("flow_mismatch", providerId, linkReturn);
      const adapter = adapterOf(providerId, linkReturn);
      const secrets = { state: flow.state, nonce: flow.nonce, codeVerifier: flow.code_verifier };
      const profile = await adapter.finish(query, secrets).catch((error: unknown) => failureOf(error, providerId, linkReturn));
      if (!flow.link_user_id) return signInWith(adapter, profile, device, flow.return_to, flow.invite ?? undefined);

      const known = await identities.find(profile.issuer, profile.subject);
      if (flow.confirm_session_id) {
        // A fresh check: the provider vouched again for an identity of this very account.
        if (known?.user_id !== flow.link_user_id) throw new SignInFailure("confirm_mismatch", providerId, linkReturn);
        await deps.sessions.markReauthenticated(flow.confirm_session_id, clock.now());
        return { kind: "confirmed", returnTo: flow.return_to };
      }
      if (known && known.user_id !== flow.link_user_id) throw new SignInFailure("already_linked", providerId, linkReturn);
      if (!known) {
        const stored = await identities.insertIfNew({
          id: randomUUID(),
          user_id: flow.link_user_id,
          provider: providerId,
          issuer: profile.issuer,
          subject: profile.subject,
          email: profile.email ?? "",
          created_at: clock.now(),
        });
        if (!stored) throw new SignInFailure("already_linked", providerId, linkReturn);
      }
      return { kind: "linked", returnTo: flow.return_to };
    },

    async linked(userId: string): Promise<{ identities: LinkedIdentity[]; has_password: boolean }> {
      const rows = await identities.ofUser(userId);
      return {
        identities: rows.map((r) => ({
          id: r.id,
          provider: r.provider,
          label: labelOf(r.provider),
          email: r.email,
          created_at: r.created_at,
        })),
        has_password: await accounts.hasPassword(userId),
      };
    },

    /** Unlinks one identity, unless the account would be left with no way to sign in. */
    async unlink(userId: string, identityId: string): Promise<void> {
      const rows = await identities.ofUser(userId);
      if (!rows.some((r) => r.id === identityId)) throw notFound("sign-in method");
      if (rows.length === 1 && !(await accounts.hasPassword(userId))) {
        throw conflict("last_sign_in_method", "This is the only way to sign in to your account. Link another provider first.");
      }
      await identities.remove(userId, identityId);
    },
  };
}

export type IdentitiesService = ReturnType<typeof createIdentitiesService>;

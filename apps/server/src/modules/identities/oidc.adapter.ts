/**
 * An OpenID Connect provider through openid-client: discovery (again at each sign-in's start, so a provider that
 * went down is answered with a readable error before anyone is sent to it, and one that came back works without a
 * restart; the callback uses the last one that succeeded), the authorization URL with PKCE S256, state and nonce, and the code exchange, which checks the answer's
 * `iss`, the state, the ID token's signature, issuer, audience and nonce.
 */
import * as client from "openid-client";
import { isLoopbackAddress, type OidcProviderConfig } from "../../config/identity-providers.ts";
import type { FlowSecrets, ProviderAdapter, ProviderProfile } from "./provider.ts";
import { ProviderFailure } from "./provider.ts";

const TIMEOUT_SECONDS = 10;

export function createOidcAdapter(provider: OidcProviderConfig, redirectUri: string): ProviderAdapter {
  let discovered: client.Configuration | undefined;

  async function discover(): Promise<client.Configuration> {
    const issuer = new URL(provider.issuer);
    try {
      discovered = await client.discovery(issuer, provider.clientId, provider.clientSecret, undefined, {
        timeout: TIMEOUT_SECONDS,
        ...(issuer.protocol === "http:" && isLoopbackAddress(issuer.hostname) ? { execute: [client.allowInsecureRequests] } : {}),
      });
      return discovered;
    } catch (error) {
      throw new ProviderFailure("unavailable", `discovery at ${provider.issuer} failed: ${describe(error)}`);
    }
  }

  const configuration = async () => discovered ?? (await discover());

  return {
    config: provider,
    check: async () => void (await discover()),

    async authorizationUrl(secrets: FlowSecrets, options: { reauthenticate?: boolean } = {}): Promise<string> {
      const config = await discover();
      return client
        .buildAuthorizationUrl(config, {
          redirect_uri: redirectUri,
          scope: "openid email profile",
          code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
          code_challenge_method: "S256",
          state: secrets.state,
          nonce: secrets.nonce,
          ...(options.reauthenticate ? { prompt: "login" } : {}),
        })
        .toString();
    },

    async finish(callbackQuery: URLSearchParams, secrets: FlowSecrets): Promise<ProviderProfile> {
      const config = await configuration();
      const currentUrl = new URL(redirectUri);
      currentUrl.search = callbackQuery.toString();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: secrets.codeVerifier,
          expectedState: secrets.state,
          expectedNonce: secrets.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        if (error instanceof client.AuthorizationResponseError && error.error === "access_denied") {
          throw new ProviderFailure("cancelled", "the person cancelled at the provider");
        }
        throw new ProviderFailure("refused", describe(error));
      }
      const idToken = tokens.claims();
      if (!idToken) throw new ProviderFailure("refused", "no ID token");
      // A provider may keep email and name to its userinfo endpoint (they are asked for by scope, not in the ID token).
      let claims: Record<string, unknown> & { iss: string; sub: string } = idToken;
      if (idToken.email === undefined || idToken.email_verified === undefined) {
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub).catch((error: unknown) => {
          throw new ProviderFailure("refused", `userinfo: ${describe(error)}`);
        });
        claims = {
          ...userinfo,
          ...idToken,
          email: idToken.email ?? userinfo.email,
          email_verified: idToken.email_verified ?? userinfo.email_verified,
        };
      }
      const email = typeof claims.email === "string" ? claims.email.toLowerCase() : undefined;
      const name = [claims.name, claims.preferred_username, claims.given_name].find((n) => typeof n === "string" && n.trim());
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email,
        emailVerified: claims.email_verified === true || claims.email_verified === "true",
        name: typeof name === "string" ? name.trim() : undefined,
      };
    },
  };
}

/** The failure in one line for the log: openid-client's code and message, and the cause's. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = "code" in error ? ` (${String(error.code)}${"error" in error ? ` ${String(error.error)}` : ""})` : "";
  const detail = "error_description" in error && error.error_description ? `: ${String(error.error_description)}` : "";
  const cause = error.cause instanceof Error ? `; ${error.cause.message}` : "";
  return `${error.message}${code}${detail}${cause}`;
}

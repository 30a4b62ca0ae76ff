/**
 * GitHub's OAuth 2 (it is not OpenID Connect): the authorize page, the code exchange (with PKCE), then `/user` for
 * the numeric id, which is the subject, and `/user/emails`, where only a primary, verified address counts.
 */

import { createHash } from "node:crypto";
import { z } from "zod";
import type { GithubProviderConfig } from "../../config/identity-providers.ts";
import type { FlowSecrets, ProviderAdapter, ProviderProfile } from "./provider.ts";
import { ProviderFailure } from "./provider.ts";

const TIMEOUT_MS = 10_000;
/** Identities from GitHub are stored under this issuer, wherever its endpoints are. */
export const GITHUB_ISSUER = "https://github.com";

const tokenAnswer = z.union([
  z.object({ access_token: z.string().min(1) }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);
const userAnswer = z.object({ id: z.number().int().positive(), login: z.string(), name: z.string().nullish() });
const emailsAnswer = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }));

export function createGithubAdapter(provider: GithubProviderConfig, redirectUri: string): ProviderAdapter {
  async function call(url: string, init: RequestInit): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new ProviderFailure(
        "unavailable",
        `${url}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`,
      );
    }
    if (!res.ok) throw new ProviderFailure(res.status >= 500 ? "unavailable" : "refused", `${url} answered ${res.status}`);
    return res.json().catch(() => {
      throw new ProviderFailure("refused", `${url} answered something other than JSON`);
    });
  }

  const api = (path: string, token: string) =>
    call(`${provider.apiUrl}${path}`, {
      headers: { accept: "application/vnd.github+json", authorization: `Bearer ${token}`, "user-agent": "Daysync" },
    });

  return {
    config: provider,
    // Nothing to discover: its endpoints are fixed. A wrong client id or secret shows only at the first sign-in.
    check: async () => {},

    async authorizationUrl(secrets: FlowSecrets): Promise<string> {
      const url = new URL(`${provider.baseUrl}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: provider.clientId,
        redirect_uri: redirectUri,
        scope: "read:user user:email",
        state: secrets.state,
        code_challenge: createHash("sha256").update(secrets.codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
        allow_signup: "false",
      }).toString();
      return url.href;
    },

    async finish(query: URLSearchParams, secrets: FlowSecrets): Promise<ProviderProfile> {
      if (query.get("error") === "access_denied") throw new ProviderFailure("cancelled", "the person cancelled at GitHub");
      const code = query.get("code");
      if (!code) throw new ProviderFailure("refused", `no code in the callback (${query.get("error") ?? "no error given"})`);
      const answer = tokenAnswer.safeParse(
        await call(`${provider.baseUrl}/login/oauth/access_token`, {
          method: "POST",
          headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded", "user-agent": "Daysync" },
          body: new URLSearchParams({
            client_id: provider.clientId,
            client_secret: provider.clientSecret,
            code,
            redirect_uri: redirectUri,
            code_verifier: secrets.codeVerifier,
          }),
        }),
      );
      if (!answer.success) throw new ProviderFailure("refused", "the token answer has an unexpected shape");
      if ("error" in answer.data) {
        throw new ProviderFailure(
          "refused",
          `the code exchange failed: ${answer.data.error} ${answer.data.error_description ?? ""}`.trim(),
        );
      }
      const token = answer.data.access_token;
      const user = userAnswer.safeParse(await api("/user", token));
      const emails = emailsAnswer.safeParse(await api("/user/emails", token));
      if (!user.success || !emails.success) throw new ProviderFailure("refused", "GitHub's user answer has an unexpected shape");
      const primary = emails.data.find((e) => e.primary && e.verified);
      return {
        issuer: GITHUB_ISSUER,
        subject: String(user.data.id),
        email: primary?.email.toLowerCase(),
        emailVerified: primary !== undefined,
        name: user.data.name?.trim() || user.data.login,
      };
    },
  };
}

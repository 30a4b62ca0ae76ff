/**
 * A real OpenID Connect provider on a loopback port (the `oidc-provider` package), for tests of sign-in through a
 * provider: one client, accounts with the email claims a test gives them, and the provider's own login page
 * (its development interactions: any password; the login names the account). Consent is taken as given, as a
 * first-party provider does, so the login page is the only one a person fills in.
 */
import type { Server } from "node:http";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";
import { freePort } from "./free-port.ts";

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login name; a test adds its own. */
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
  /** Starts again on the same port after `stop`. */
  restart(): Promise<void>;
}

export async function startTestProvider(options: { redirectUris: string[]; port?: number }): Promise<TestProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "daysync-test";
  const clientSecret = "test-client-secret-that-is-long-enough";
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["daysync-test-provider-cookie-key"] },
    pkce: { methods: ["S256"], required: () => true },
    features: { devInteractions: { enabled: true } },
    // Set, so the provider does not note each default it falls back to.
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx: KoaContextWithOIDC, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });
  // Its development interactions warn on every start; the tests know.
  provider.on("server_error", () => {});
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = provider.listen(port, "127.0.0.1", () => resolve());
      s.once("error", reject);
      server = s;
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  return { issuer, clientId, clientSecret, accounts, stop, restart: listen };
}

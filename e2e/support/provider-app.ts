/** A Daysync server with one OpenID Connect provider, "Example ID" (sign-up allowed): a real oidc-provider on localhost. */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "../../apps/server/src/testing/free-port.ts";
import { startTestProvider, type TestProvider } from "../../apps/server/src/testing/oidc-test-provider.ts";
import { launchBrowser } from "./browser.ts";
import { type RunningServer, startServer } from "./server.ts";

export interface ProviderApp {
  provider: TestProvider;
  server: RunningServer;
  browser: Browser;
  stop(): Promise<void>;
}

export async function startProviderApp(): Promise<ProviderApp> {
  // The provider must know the callback address before the server starts: the port is chosen first.
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = await startTestProvider({ redirectUris: [`${publicUrl}/api/auth/oidc/example/callback`] });
  const [server, browser] = await Promise.all([
    startServer({
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      OIDC_PROVIDERS: "example",
      OIDC_EXAMPLE_ISSUER: provider.issuer,
      OIDC_EXAMPLE_CLIENT_ID: provider.clientId,
      OIDC_EXAMPLE_CLIENT_SECRET: provider.clientSecret,
      OIDC_EXAMPLE_LABEL: "Example ID",
      OIDC_EXAMPLE_ALLOW_SIGNUP: "true",
    }),
    launchBrowser(),
  ]);
  return {
    provider,
    server,
    browser,
    async stop() {
      await browser.close();
      await server.stop();
      await provider.stop();
    },
  };
}

/** Starts the app before this file's tests and stops it after them; its parts can be read once it started. */
export function useProviderApp(): Omit<ProviderApp, "stop"> {
  let app: ProviderApp | undefined;
  beforeAll(async () => {
    app = await startProviderApp();
  });
  afterAll(async () => {
    await app?.stop();
  });
  const started = () => {
    if (!app) throw new Error("the app with its provider has not started");
    return app;
  };
  return {
    get provider() {
      return started().provider;
    },
    get server() {
      return started().server;
    },
    get browser() {
      return started().browser;
    },
  };
}

/** The real server and Chromium, started before a test file's tests and stopped after them. */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser } from "./browser.ts";
import { type RunningServer, startServer } from "./server.ts";

export interface StartedApp {
  server: RunningServer;
  browser: Browser;
}

/** Call at the top of a file (or describe); the fields are set once its tests start. */
export function useStartedApp(env: Record<string, string> = {}): StartedApp {
  const app = {} as StartedApp;
  beforeAll(async () => {
    [app.server, app.browser] = await Promise.all([startServer(env), launchBrowser()]);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.server?.stop();
  });
  return app;
}

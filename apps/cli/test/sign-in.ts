/** Test set-up: an account with a signed-in browser, and a terminal signed in to it by the real `daysync login --password`. */
import { afterAll, beforeAll, expect } from "vitest";
import { Device, startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import { removeTempDirs, Terminal } from "./cli-process.ts";

export const PASSWORD = "correct horse";

export async function registerBrowser(server: string, email: string): Promise<Device> {
  const browser = new Device(server);
  await browser.register(email.split("@")[0] ?? "Someone", email, PASSWORD);
  return browser;
}

export async function signedInTerminal(server: string, email: string, env: Record<string, string> = {}): Promise<Terminal> {
  const terminal = new Terminal(server, env);
  const login = await terminal.run(["login", "--password", "--email", email], { input: `${PASSWORD}\n` });
  expect(login.code, login.stderr).toBe(0);
  return terminal;
}

export interface SignedInSetup {
  server: TestServer;
  browser: Device;
  terminal: Terminal;
}

/** Call at the top of a test file: a started server, Ann's browser and her signed-in terminal, set once its tests start. */
export function useSignedInTerminal(): SignedInSetup {
  const setup = {} as SignedInSetup;
  beforeAll(async () => {
    setup.server = await startTestServer();
    setup.browser = await registerBrowser(setup.server.url, "ann@example.com");
    setup.terminal = await signedInTerminal(setup.server.url, "ann@example.com");
  });
  afterAll(async () => {
    await setup.server?.close();
    await removeTempDirs();
  });
  return setup;
}

/** Test set-up: an account with a signed-in browser, and a terminal signed in to it by the real `daysync login --password`. */
import { expect } from "vitest";
import { Device } from "../../server/src/testing/test-server.ts";
import { Terminal } from "./cli-process.ts";

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

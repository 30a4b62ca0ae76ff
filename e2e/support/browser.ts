/** Debian's Chromium driven by playwright-core (no browser download here). */
import { type Browser, chromium } from "playwright-core";
import { watchPolicyViolations } from "./policy-violations.ts";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Chromium whose pages' policy violations fail the running test (support/policy-check.ts). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
  return watchPolicyViolations(browser);
}

/**
 * Collects what a page does against the server's Content-Security-Policy or Permissions-Policy. Chromium
 * logs most violations (a blocked script, style, load or device) to the console, but not an eval that the
 * page caught (zod's probe), so each page also logs every `securitypolicyviolation` event it sees. Every
 * browser the tests launch is watched, and support/policy-check.ts fails any test during which a violation
 * was reported: so every browser test also shows the app works under the policy.
 */
import type { Browser, BrowserContext } from "playwright-core";

const POLICY_MESSAGE = /Content Security Policy|securitypolicyviolation|Permissions policy/i;
const reported: string[] = [];

/** Runs in each page before its own scripts. */
function logViolations() {
  addEventListener("securitypolicyviolation", (event) =>
    console.error(
      `securitypolicyviolation: ${event.effectiveDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`,
    ),
  );
}

/** Watches every context of the browser, those made later included. */
export function watchPolicyViolations(browser: Browser): Browser {
  const watch = (context: BrowserContext) => {
    context.on("console", (message) => {
      if (POLICY_MESSAGE.test(message.text())) reported.push(`${message.location().url || "(page)"}: ${message.text()}`);
    });
    // Sent before the test's first page is asked for; it fails only when the context is already closed.
    context.addInitScript(logViolations).catch(() => {});
  };
  for (const context of browser.contexts()) watch(context);
  browser.on("context", watch);
  return browser;
}

/** The violations reported since the last call. */
export function takePolicyViolations(): string[] {
  return reported.splice(0);
}

/**
 * Sign-in through an identity provider in real Chromium: a real OpenID provider on localhost (oidc-provider),
 * its own login page filled in, and back on the dashboard with the spec's welcome notice.
 */
import { TEXT } from "@daysync/shared";
import { expect, it } from "vitest";
import { useProviderApp } from "./support/provider-app.ts";

const app = useProviderApp();

it("signs in with 'Continue with …' on /login, through the provider's own sign-in page, to the dashboard", async () => {
  app.provider.accounts.set("grace", { email: "grace@example.com", email_verified: true, name: "Grace Hopper" });
  const context = await app.browser.newContext({ baseURL: app.server.url });
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByRole("link", { name: "Continue with Example ID" }).click();

  await page.waitForURL((url) => url.origin === app.provider.issuer);
  await page.locator('input[name="login"]').fill("grace");
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();

  await page.waitForURL(`${app.server.url}/dashboard`);
  await page.getByText(TEXT.loginSuccessTitle).waitFor();
  await page.getByText(TEXT.loginSuccessBody, { exact: true }).waitFor();
  await page.getByText("Grace Hopper").first().waitFor();
  const me = await context.request.get(`${app.server.url}/api/me`);
  expect(((await me.json()) as { user: { email: string } }).user.email).toBe("grace@example.com");

  // Its only way in is the provider: listed, and not to be unlinked.
  await page.goto("/dashboard/settings");
  const methods = page.getByRole("region", { name: "Sign-in methods" });
  await expect(methods.getByRole("button", { name: "Unlink Example ID" }).isDisabled()).resolves.toBe(true);
  await context.close();
});

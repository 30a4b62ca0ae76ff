/**
 * Settings in real Chromium: reached from the sidebar; the name changed (and shown on the other device live),
 * a provider linked through a real OpenID provider's own sign-in page, the password changed (the other device
 * signed out live, the new password signs in), and the account deleted (the email typed; signed out, and signing
 * in again fails).
 */
import { SETTINGS_TEXT, TEXT } from "@daysync/shared";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { keyStateOf, newDevice, openSignInPage, PASSWORD, twoDevicesOfOneUser, uniqueEmail, visible } from "./support/daysync.ts";
import { useProviderApp } from "./support/provider-app.ts";

const app = useProviderApp();

async function signIn(page: Page, email: string, password: string) {
  await openSignInPage(page, "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
}

it("changes the name, links a provider, changes the password and deletes the account", async () => {
  const email = uniqueEmail("settings");
  app.provider.accounts.set("linda", { email: "linda@example.org", email_verified: true, name: "Linda Link" });
  const [laptop, phone] = await twoDevicesOfOneUser(app.browser, app.server.url, { name: "Sett Ings", email });
  const { page } = laptop;
  // The laptop makes the account's key before the phone opens, so the laptop may sign the phone out below (a device
  // without the key may not sign out the last one that has it: issue 42).
  await page.goto("/dashboard");
  await expect.poll(async () => (await keyStateOf(laptop, app.server.url)).wraps.length, { timeout: 15_000 }).toBe(1);
  await phone.page.goto("/dashboard");

  // Reached from the sidebar, with a heading and labelled sections.
  await page.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL("**/dashboard/settings");
  await visible(page.getByRole("heading", { name: "Settings", level: 1 }));
  for (const name of ["Name", "Email", "Password", "Sign-in methods", "Delete account"]) {
    await visible(page.getByRole("region", { name, exact: true }));
  }

  // Name: saved, shown in this sidebar and live on the other device.
  const nameSection = page.getByRole("region", { name: "Name", exact: true });
  await nameSection.getByLabel("Your name").fill("Renamed Person");
  await nameSection.getByRole("button", { name: "Save name" }).click();
  await visible(page.getByRole("link", { name: /Renamed Person/ }));
  await visible(phone.page.getByRole("link", { name: /Renamed Person/ }));

  // A provider linked: the password again, the provider's own page, back here with it listed.
  const methods = page.getByRole("region", { name: "Sign-in methods" });
  await methods.getByRole("button", { name: "Link Example ID" }).click();
  await methods.getByLabel("Enter your password to link Example ID").fill(PASSWORD);
  await methods.getByRole("button", { name: "Continue with Example ID" }).click();
  await page.waitForURL((url) => url.origin === app.provider.issuer);
  await page.locator('input[name="login"]').fill("linda");
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.waitForURL("**/dashboard/settings");
  await visible(page.getByText("Example ID is linked: you can sign in with it now."));
  await visible(methods.getByRole("button", { name: "Unlink Example ID" }));
  await visible(methods.getByText("linda@example.org"));

  // Password: changed; the other device is signed out live, this one stays.
  const password = page.getByRole("region", { name: "Password", exact: true });
  expect(await password.getByRole("checkbox", { name: "Keep my other devices signed in" }).isChecked()).toBe(false);
  await password.getByLabel("Current password").fill(PASSWORD);
  await password.getByLabel("New password").fill("a brand new password");
  await password.getByLabel("Confirm password").fill("a brand new password");
  await password.getByRole("button", { name: "Change password" }).click();
  await visible(page.getByText("Your password was changed. 1 other device was signed out."));
  await phone.page.waitForURL("**/login");
  await visible(phone.page.getByText("You were signed out on this device."));
  await signIn(phone.page, email, "a brand new password");
  await phone.page.waitForURL("**/dashboard");
  await phone.context.close();

  // Delete: the email typed; this browser lands signed out with a notice, and the account is gone.
  const danger = page.getByRole("region", { name: "Delete account" });
  await danger.getByRole("button", { name: "Delete account…" }).click();
  const confirmButton = danger.getByRole("button", { name: "Delete my account forever" });
  expect(await confirmButton.isDisabled()).toBe(true);
  await danger.getByLabel(`Type your email (${email}) to confirm`).fill(email);
  await danger.getByLabel("Your password").fill("a brand new password");
  await confirmButton.click();
  await page.waitForURL("**/login");
  await visible(page.getByText(SETTINGS_TEXT.accountDeleted));
  expect(
    (await page
      .context()
      .request.get(`${app.server.url}/api/session`)
      .then((r) => r.json())) as unknown,
  ).toEqual({ user: null });

  const again = await newDevice(app.browser, app.server.url);
  await signIn(again.page, email, "a brand new password");
  await visible(again.page.getByText("Invalid email or password.").first());
  await again.context.close();
  await laptop.context.close();
});

it("an account made through a provider sets a password after confirming with its provider, then signs in with it", async () => {
  app.provider.accounts.set("pat", { email: "pat@example.org", email_verified: true, name: "Pat Provider" });
  const { context, page } = await newDevice(app.browser, app.server.url);
  const providerSignIn = async () => {
    await page.waitForURL((url) => url.origin === app.provider.issuer);
    await page.locator('input[name="login"]').fill("pat");
    await page.locator('input[name="password"]').fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
  };
  await page.goto("/login");
  await page.getByRole("link", { name: "Continue with Example ID" }).click();
  await providerSignIn();
  await page.waitForURL("**/dashboard");

  await page.goto("/dashboard/settings");
  const section = page.getByRole("region", { name: "Set a password" });
  await section.getByRole("button", { name: "Confirm with Example ID" }).click();
  // The provider asks again even though it still knows this app.browser.
  await providerSignIn();
  await page.waitForURL("**/dashboard/settings");
  await visible(section.getByRole("status").filter({ hasText: "Confirmed: until" }));
  await section.getByLabel("New password").fill("pat's own password");
  await section.getByLabel("Confirm password").fill("pat's own password");
  await section.getByRole("button", { name: "Set password" }).click();
  await visible(page.getByText("Your password is set: you can sign in with your email too."));
  await visible(page.getByRole("region", { name: "Password", exact: true }).getByLabel("Current password"));

  const other = await newDevice(app.browser, app.server.url);
  await signIn(other.page, "pat@example.org", "pat's own password");
  await other.page.waitForURL("**/dashboard");
  await other.context.close();
  await context.close();
});

/**
 * Issue 42, point 3, in real Chromium: registering an address that someone else started an account with, and never
 * confirmed, shows what to do instead (a sign-in link or Forgot password? makes the account the address owner's).
 */
import { EMAIL_UNCONFIRMED_REGISTER_MESSAGE, TEXT } from "@daysync/shared";
import { expect, it } from "vitest";
import { newDevice, openSignInPage, PASSWORD, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { useMailApp } from "./support/mail-app.ts";

const app = useMailApp();

it("says what to do instead when the address was taken by an account never confirmed, and offers Sign in", async () => {
  const email = uniqueEmail("claimed");
  const squatter = await newDevice(app.browser, app.server.url);
  await registerViaApi(squatter, app.server.url, "Squatter", email);
  await squatter.context.close();

  const { context, page } = await newDevice(app.browser, app.server.url);
  await openSignInPage(page, "/register");
  await page.getByLabel("Name").fill("Owner");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: TEXT.register }).click();

  await visible(page.getByRole("alert").filter({ hasText: EMAIL_UNCONFIRMED_REGISTER_MESSAGE }).first());
  await visible(page.getByRole("link", { name: "Sign in instead" }));
  expect(new URL(page.url()).pathname).toBe("/register");
  await context.close();
});

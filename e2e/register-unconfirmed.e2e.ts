/**
 * Issue 42, point 3, in real Chromium: registering an address that someone else started an account with, and never
 * confirmed, shows what to do instead (a sign-in link or Forgot password? makes the account the address owner's).
 */
import { EMAIL_UNCONFIRMED_REGISTER_MESSAGE, TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../apps/server/src/testing/free-port.ts";
import { type SmtpMailbox, startSmtpMailbox } from "../apps/server/src/testing/smtp-mailbox.ts";
import { launchBrowser } from "./support/browser.ts";
import { newDevice, openSignInPage, PASSWORD, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

let mailbox: SmtpMailbox;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  mailbox = await startSmtpMailbox();
  const port = await freePort();
  [server, browser] = await Promise.all([
    startServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: mailbox.url,
      // The test mailbox offers no STARTTLS.
      SMTP_ALLOW_PLAINTEXT: "true",
      MAIL_FROM: "Daysync <noreply@daysync.test>",
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await mailbox?.stop();
});

it("says what to do instead when the address was taken by an account never confirmed, and offers Sign in", async () => {
  const email = uniqueEmail("claimed");
  const squatter = await newDevice(browser, server.url);
  await registerViaApi(squatter, server.url, "Squatter", email);
  await squatter.context.close();

  const { context, page } = await newDevice(browser, server.url);
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

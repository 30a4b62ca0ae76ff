/**
 * Email (issue 26) in real Chromium against a real SMTP server started by the test: Forgot password → the link read
 * from the mailbox → a new password → signed in on the dashboard; a sign-in link; the unverified banner with Resend,
 * cleared by the verification link; and a server without SMTP shows none of it.
 */
import { API, EMAIL_API, EMAIL_TEXT, SIGN_IN_LINK_INVALID_MESSAGE, TEXT } from "@daysync/shared";
import type { BrowserContext } from "playwright-core";
import { expect, it } from "vitest";
import { hidden, newDevice, openSignInPage, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { useMailApp } from "./support/mail-app.ts";
import { startServer } from "./support/server.ts";

const app = useMailApp();

/** An account made on a device of its own (its verification mail already in the mailbox), and that device. */
async function account(tag: string) {
  const email = uniqueEmail(tag);
  const setup = await newDevice(app.browser, app.server.url);
  const first = app.mailbox.next(email, { already: 0 });
  await registerViaApi(setup, app.server.url, `${tag[0]?.toUpperCase()}${tag.slice(1)} Tester`, email);
  await first;
  return { email, setup };
}

it("Forgot password? → the mailed link → a new password → signed in on the dashboard, the other device signed out", async () => {
  const { email, setup } = await account("forgetful");
  const { context, page } = await newDevice(app.browser, app.server.url);
  await openSignInPage(page, "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("link", { name: EMAIL_TEXT.forgotPassword }).click();

  await visible(page.getByRole("heading", { name: EMAIL_TEXT.forgotHeading }));
  expect(await page.getByLabel("Email").inputValue()).toBe(email);
  const mailed = app.mailbox.next(email);
  await page.getByRole("button", { name: EMAIL_TEXT.sendResetLink }).click();
  await visible(page.getByText(EMAIL_TEXT.resetSent));

  const link = app.mailbox.linkIn(await mailed, "/reset-password");
  expect(link.startsWith(`${app.server.url}/reset-password#`)).toBe(true);
  await page.goto(link);
  await page.getByLabel("New password").fill("a brand new horse");
  await page.getByLabel("Confirm password").fill("a brand new horse");
  await page.getByRole("button", { name: "Set password" }).click();

  await page.waitForURL(`${app.server.url}/dashboard`);
  await visible(page.getByText(TEXT.loginSuccessTitle));
  await visible(page.getByText("Forgetful Tester").first());
  expect((await setup.context.request.get(`${app.server.url}${API.me}`)).status()).toBe(401);
  const signIn = await (await app.browser.newContext()).request.post(`${app.server.url}${API.login}`, {
    data: { email, password: "a brand new horse" },
  });
  expect(signIn.status()).toBe(200);
  await Promise.all([context.close(), setup.context.close()]);
});

it("Email me a sign-in link → the mailed link signs this device in, with the welcome notice", async () => {
  const { email, setup } = await account("linked");
  const { context, page } = await newDevice(app.browser, app.server.url);
  await openSignInPage(page, "/login");
  await page.getByRole("link", { name: EMAIL_TEXT.emailSignInLink }).click();
  await visible(page.getByRole("heading", { name: EMAIL_TEXT.signInLinkHeading }));
  await page.getByLabel("Email").fill(email);
  const mailed = app.mailbox.next(email);
  await page.getByRole("button", { name: EMAIL_TEXT.sendSignInLink }).click();
  await visible(page.getByText(EMAIL_TEXT.signInLinkSent));

  const link = app.mailbox.linkIn(await mailed, "/sign-in-link");
  await page.goto(link);
  await page.waitForURL(`${app.server.url}/dashboard`);
  await visible(page.getByText(TEXT.loginSuccessTitle));
  await visible(page.getByText(TEXT.loginSuccessBody, { exact: true }));
  await visible(page.getByText("Linked Tester").first());
  // A second use of the link is refused, with the spec's 'Login failed'.
  const second = await newDevice(app.browser, app.server.url);
  await second.page.goto(link);
  await visible(second.page.getByText(SIGN_IN_LINK_INVALID_MESSAGE));
  await visible(second.page.getByText(TEXT.loginFailedTitle));
  await Promise.all([context.close(), setup.context.close(), second.context.close()]);
});

/** Who this app.browser's session is, by the API it uses. */
async function signedInEmail(context: BrowserContext): Promise<string | null> {
  const res = await context.request.get(`${app.server.url}${API.me}`);
  return res.ok() ? ((await res.json()) as { user: { email: string } }).user.email : null;
}

/** A link of `kind` mailed to `email`, asked for by a stranger (the attacker who owns that account). */
async function linkFor(kind: "sign-in" | "reset", email: string): Promise<string> {
  const mailed = app.mailbox.next(email);
  const ask = kind === "sign-in" ? EMAIL_API.signInLink : EMAIL_API.forgotPassword;
  const res = await (await app.browser.newContext()).request.post(`${app.server.url}${ask}`, { data: { email } });
  expect(res.status()).toBe(202);
  return app.mailbox.linkIn(await mailed, kind === "sign-in" ? "/sign-in-link" : "/reset-password");
}

it("asks a signed-in app.browser before another account's sign-in link switches it, and stays on a no (login CSRF, issue 42)", async () => {
  const victim = await account("victim");
  const attacker = await account("attacker");
  const { page, context } = victim.setup;
  const asked = () => visible(page.getByText(EMAIL_TEXT.signedInAs.replace("{name}", "Victim Tester").replace("{email}", victim.email)));

  await page.goto(await linkFor("sign-in", attacker.email));
  await asked();
  await visible(page.getByText(EMAIL_TEXT.signInLinkOtherAccount));
  expect(await signedInEmail(context)).toBe(victim.email);
  await page.getByRole("button", { name: EMAIL_TEXT.staySignedIn }).click();
  await page.waitForURL(`${app.server.url}/dashboard`);
  await visible(page.getByText("Victim Tester").first());
  expect(await signedInEmail(context)).toBe(victim.email);

  // On a yes, the link is used.
  await page.goto(await linkFor("sign-in", attacker.email));
  await asked();
  await page.getByRole("button", { name: EMAIL_TEXT.useOtherAccount }).click();
  await page.waitForURL(`${app.server.url}/dashboard`);
  await visible(page.getByText("Attacker Tester").first());
  expect(await signedInEmail(context)).toBe(attacker.email);
  await attacker.setup.context.close();
  await context.close();
});

it("asks a signed-in app.browser before showing another account's reset form, and stays on a no", async () => {
  const victim = await account("resetvictim");
  const attacker = await account("resetattacker");
  const { page, context } = victim.setup;
  await page.goto(await linkFor("reset", attacker.email));
  await visible(page.getByText(EMAIL_TEXT.signedInAs.replace("{name}", "Resetvictim Tester").replace("{email}", victim.email)));
  await visible(page.getByText(EMAIL_TEXT.resetLinkOtherAccount));
  expect(await page.getByLabel("New password").count()).toBe(0);
  await page.getByRole("button", { name: EMAIL_TEXT.staySignedIn }).click();
  await page.waitForURL(`${app.server.url}/dashboard`);
  expect(await signedInEmail(context)).toBe(victim.email);

  await page.goto(await linkFor("reset", attacker.email));
  await page.getByRole("button", { name: EMAIL_TEXT.resetOtherAccount }).click();
  await page.getByLabel("New password").fill("a brand new horse");
  await page.getByLabel("Confirm password").fill("a brand new horse");
  await page.getByRole("button", { name: "Set password" }).click();
  await page.waitForURL(`${app.server.url}/dashboard`);
  expect(await signedInEmail(context)).toBe(attacker.email);
  await attacker.setup.context.close();
  await context.close();
});

it("shows a quiet banner with Resend while the address is unverified; the link clears it on every open page", async () => {
  const { email, setup } = await account("unverified");
  const { page } = setup;
  await page.goto("/dashboard");
  const banner = page.getByRole("region", { name: "Email not confirmed" });
  await visible(banner.getByText(EMAIL_TEXT.unverifiedBanner.replace("{email}", email)));
  const mailed = app.mailbox.next(email);
  await banner.getByRole("button", { name: EMAIL_TEXT.resend }).click();
  await visible(banner.getByText(EMAIL_TEXT.resent));

  const tab = await setup.context.newPage();
  await tab.goto(app.mailbox.linkIn(await mailed, "/verify-email"));
  await visible(tab.getByText(EMAIL_TEXT.verified));
  // The first page heard it live: the banner is gone without a reload.
  await hidden(banner);
  await setup.context.close();
});

it("shows none of it on a server without SMTP", async () => {
  const plain = await startServer();
  try {
    const { context, page } = await newDevice(app.browser, plain.url);
    await openSignInPage(page, "/login");
    // The providers' and email's answers are in once the page has asked.
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("link", { name: EMAIL_TEXT.forgotPassword }).count()).toBe(0);
    expect(await page.getByRole("link", { name: EMAIL_TEXT.emailSignInLink }).count()).toBe(0);
    await registerViaApi({ context, page }, plain.url, "No Mail", uniqueEmail("nomail"));
    await page.goto("/dashboard");
    await visible(page.getByText("No Mail").first());
    expect(await page.getByRole("region", { name: "Email not confirmed" }).count()).toBe(0);
    await context.close();
  } finally {
    await plain.stop();
  }
});

/**
 * An install that is the owner's (issue 43), in real Chromium: who may register (REGISTRATION unset: open until the
 * first account, then by one-time invite links from /admin; closed), the owner's contact details, brand line and
 * store links only where set, and plans without prices on a server that takes no payments.
 */
import { API, REGISTRATION_TEXT, TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, hidden, newDevice, PASSWORD, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

async function fillRegister(device: Device, name: string) {
  const { page } = device;
  await page.locator('form button[type="submit"]:enabled').waitFor();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(uniqueEmail(name.toLowerCase()));
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: TEXT.register }).click();
}

describe("a server left as installed: registration by invite after the first account, no owner details, no payments", () => {
  let server: RunningServer;
  let admin: Device;
  const ownerEmail = uniqueEmail("owner");
  beforeAll(async () => {
    // REGISTRATION unset, as a fresh install has it.
    server = await startServer({ REGISTRATION: "" });
    admin = await newDevice(browser, server.url);
    await registerViaApi(admin, server.url, "Olive Owner", ownerEmail);
  });
  afterAll(() => server?.stop());

  it("says on the login page that registration is by invitation, and a stranger cannot register", async () => {
    const stranger = await newDevice(browser, server.url);
    await stranger.page.goto("/login");
    await visible(stranger.page.getByText(REGISTRATION_TEXT.loginInviteOnly));
    await stranger.page.goto("/register");
    await visible(stranger.page.getByRole("alert").filter({ hasText: REGISTRATION_TEXT.inviteRequired }));
    await hidden(stranger.page.getByRole("button", { name: TEXT.register }));
    const res = await stranger.context.request.post(`${server.url}${API.register}`, {
      data: { name: "Stranger", email: uniqueEmail("stranger"), password: PASSWORD, confirm_password: PASSWORD },
    });
    expect(res.status()).toBe(403);
    await stranger.context.close();
  });

  it("makes an invite link on /admin, shown with Copy, that registers one person once", async () => {
    await admin.page.goto("/admin");
    await admin.page.getByRole("button", { name: "Create invite link" }).click();
    const field = await visible(admin.page.getByRole("textbox", { name: "Invite link" }));
    await visible(admin.page.getByRole("button", { name: "Copy invite link" }));
    const link = await field.inputValue();
    expect(link.startsWith(`${server.url}/register#invite=`)).toBe(true);

    const invited = await newDevice(browser, server.url);
    await invited.page.goto(link);
    await visible(invited.page.getByText("You were invited: this link makes one account."));
    await fillRegister(invited, "Ivy");
    await invited.page.waitForURL("**/dashboard/home");

    const second = await newDevice(browser, server.url);
    await second.page.goto(link);
    await fillRegister(second, "Sly");
    await visible(second.page.getByText(REGISTRATION_TEXT.inviteInvalid).first());
    expect(new URL(second.page.url()).pathname).toBe("/register");
    await Promise.all([invited.context.close(), second.context.close()]);
  });

  it("shows no contact details, brand line or store badges that the owner did not set", async () => {
    const visitor = await newDevice(browser, server.url);
    await visitor.page.goto("/");
    await visible(visitor.page.locator("#pricing").getByText("does not take payments"));
    const body = (await visitor.page.locator("body").textContent()) ?? "";
    for (const text of ["+1-555-0134", "hello@daysync.app", "Daysync Labs", "Google Play", "App Store"]) expect(body).not.toContain(text);
    expect(await visitor.page.locator("#contact").count()).toBe(0);
    expect(await visitor.page.getByRole("link", { name: "Contact", exact: true }).count()).toBe(0);
    await admin.page.goto("/dashboard");
    await visible(admin.page.getByText(TEXT.version));
    expect(await admin.page.getByRole("link", { name: TEXT.callUs }).count()).toBe(0);
    expect(await admin.page.getByRole("link", { name: TEXT.contactUs }).count()).toBe(0);
    await visitor.context.close();
  });

  it("shows plans without prices, on the landing page and the Plan page", async () => {
    const visitor = await newDevice(browser, server.url);
    await visitor.page.goto("/");
    const pricing = visitor.page.locator("#pricing");
    await visible(pricing.getByText("does not take payments"));
    const text = (await pricing.textContent()) ?? "";
    expect(text).toContain("15 min");
    expect(text).not.toMatch(/\$\d/);
    // Nor anywhere else on the page (the questions and answers included).
    expect((await visitor.page.locator("main").textContent()) ?? "").not.toMatch(/\$\d/);
    await admin.page.goto("/dashboard/plan");
    await visible(admin.page.getByText("This server does not take payments", { exact: false }));
    const plan = (await admin.page.locator("main").textContent()) ?? "";
    expect(plan).not.toMatch(/\$\d/);
    expect(plan).not.toContain("/ month");
    await visitor.context.close();
  });

  it("lets the admin grant Premium with no end date on /admin, which the Plan page says", async () => {
    await admin.page.goto("/admin");
    await admin.page.getByRole("button", { name: `Grant Premium: ${ownerEmail}` }).click();
    const dialog = admin.page.getByRole("dialog", { name: "Grant Premium" });
    await dialog.getByRole("checkbox", { name: "No end date" }).check();
    await hidden(dialog.getByLabel("Premium ends on"));
    await dialog.getByRole("button", { name: "Grant Premium" }).click();
    await hidden(dialog);
    const row = admin.page.getByRole("table", { name: "Accounts" }).getByRole("row").filter({ hasText: ownerEmail });
    await visible(row.getByText("no end date"));
    await admin.page.goto("/dashboard/plan");
    await visible(admin.page.getByText("No end date", { exact: true }));
  });
});

describe("a server with REGISTRATION=closed and the owner's details set", () => {
  let server: RunningServer;
  const details = {
    CONTACT_PHONE: "+44 20 7946 0000",
    CONTACT_EMAIL: "owner@home.example",
    BRAND_LINE: "The Example Household",
    APP_STORE_URL: "https://apps.example/daysync-ios",
    PLAY_STORE_URL: "https://play.example/daysync-android",
  };
  beforeAll(async () => {
    server = await startServer({ REGISTRATION: "closed", ...details });
  });
  afterAll(() => server?.stop());

  it("says on the login page that registration is closed, and the register page says why instead of its form", async () => {
    const stranger = await newDevice(browser, server.url);
    await stranger.page.goto("/login");
    await visible(stranger.page.getByText(REGISTRATION_TEXT.loginClosed));
    expect(await stranger.page.getByRole("link", { name: TEXT.registerLink }).count()).toBe(0);
    await stranger.page.goto("/register");
    await visible(stranger.page.getByRole("alert").filter({ hasText: REGISTRATION_TEXT.closed }));
    await hidden(stranger.page.getByRole("button", { name: TEXT.register }));
    await stranger.context.close();
  });

  it("shows the owner's contact details, brand line with this year, and store links", async () => {
    const visitor = await newDevice(browser, server.url);
    await visitor.page.goto("/");
    const contact = visitor.page.locator("#contact");
    await visible(contact.getByText(details.CONTACT_PHONE));
    expect(await contact.getByRole("link", { name: /Write to us/ }).getAttribute("href")).toBe(`mailto:${details.CONTACT_EMAIL}`);
    expect(await contact.getByRole("link", { name: /Call us/ }).getAttribute("href")).toBe(`tel:${details.CONTACT_PHONE}`);
    const hero = visitor.page.locator("#hero");
    expect(await hero.getByRole("link", { name: /Google Play/ }).getAttribute("href")).toBe(details.PLAY_STORE_URL);
    expect(await hero.getByRole("link", { name: /App Store/ }).getAttribute("href")).toBe(details.APP_STORE_URL);
    const footer = visitor.page.getByRole("contentinfo");
    await visible(footer.getByText(`© ${new Date().getFullYear()} ${details.BRAND_LINE}`));
    await visitor.page.goto("/login");
    await visible(visitor.page.getByRole("contentinfo").getByText(`© ${new Date().getFullYear()} ${details.BRAND_LINE}`));
    await visitor.context.close();
  });
});

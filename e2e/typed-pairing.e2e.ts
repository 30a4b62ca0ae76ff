/**
 * A QR pairing's typed code in real Chromium, one code and one round (issue 41): the new browser shows the code, the
 * signed-in one types it, and the new one is signed in reading sealed messages at once, with no second approval. A
 * wrong code three times ends the request, and both screens say so.
 */
import { APPROVAL_TEXT, SEALED_TEXT, TEXT } from "@daysync/shared";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { type Device, keyedBrowser, messageList, sendMessage, visible } from "./support/daysync.ts";

const app = useStartedApp();

let accounts = 0;

/** The phone: a keyed account's first browser, on its dashboard. */
function keyedPhone(): Promise<Device> {
  accounts += 1;
  return keyedBrowser(app.browser, app.server.url, { name: `Tia ${accounts}`, email: `typed${accounts}@example.com` });
}

/** The new browser's login panel, showing its QR code and the code to type. */
async function newBrowserShowingCode(): Promise<{ context: BrowserContext; page: Page; code: string }> {
  const context = await app.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(`${app.server.url}/login`);
  await page.getByRole("button", { name: TEXT.connectedDevice }).click();
  await page.getByRole("img", { name: /QR code/ }).waitFor();
  const code = (await page.getByTestId("pairing-short-code").textContent()) ?? "";
  expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  return { context, page, code };
}

/** On the phone: Devices' "Scan or type a code" page, the code typed, then Approve. */
async function typeAndApprove(phone: Page, code: string): Promise<void> {
  await phone.goto(`${app.server.url}/pair`);
  await phone.getByLabel("Code shown on the other device").fill(code.toLowerCase());
  await phone.getByRole("button", { name: "Continue" }).click();
  await (await visible(phone.getByRole("button", { name: "Approve" }), 15_000)).click();
}

describe("a QR pairing's typed code: one code, one round", () => {
  it("the new browser is signed in and reads sealed messages at once, with no second approval", async () => {
    const phone = await keyedPhone();
    await sendMessage(phone.page, "sealed before the laptop came");
    const laptop = await newBrowserShowingCode();

    await typeAndApprove(phone.page, laptop.code);
    await visible(phone.page.getByRole("heading", { name: "Approved" }), 30_000);

    await laptop.page.waitForURL(`${app.server.url}/dashboard`, { timeout: 30_000 });
    await visible(messageList(laptop.page).getByText("sealed before the laptop came"), 30_000);
    expect(await laptop.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).count()).toBe(0);
    expect(await laptop.page.getByText(APPROVAL_TEXT.typeThisCode).count()).toBe(0);
    await phone.page.goto(`${app.server.url}/dashboard`);
    await sendMessage(phone.page, "and after");
    await visible(messageList(laptop.page).getByText("and after"), 30_000);
    await phone.context.close();
    await laptop.context.close();
  });

  it("a wrong code three times ends the request, and both screens say so", async () => {
    const phone = await keyedPhone();
    const laptop = await newBrowserShowingCode();
    const wrong = `${laptop.code.slice(0, 5)}${laptop.code.endsWith("0000") ? "1111" : "0000"}`;
    for (const left of [2, 1]) {
      await typeAndApprove(phone.page, wrong);
      await visible(phone.page.getByRole("alert").filter({ hasText: APPROVAL_TEXT.wrongCode(left) }), 30_000);
      await visible(laptop.page.getByTestId("pairing-notice").filter({ hasText: APPROVAL_TEXT.wrongCodeTyped(left) }), 30_000);
    }
    await typeAndApprove(phone.page, wrong);
    await visible(phone.page.getByRole("alert").filter({ hasText: APPROVAL_TEXT.endedWrongCodes }), 30_000);
    await visible(laptop.page.getByTestId("pairing-notice").filter({ hasText: APPROVAL_TEXT.endedWrongCodes }), 30_000);
    expect((await laptop.context.request.get(`${app.server.url}/api/me`)).status()).toBe(401);
    await phone.context.close();
    await laptop.context.close();
  });
});

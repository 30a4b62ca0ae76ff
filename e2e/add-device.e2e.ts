/** Add a device, in real Chromium: the signed-in device shows the QR code, a signed-out phone opens it, the first approves. */
import { KEYS_API, keysStateSchema, SEALED_TEXT, TEXT } from "@daysync/shared";
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { messageList, nothingPending, sendMessage, visible } from "./support/daysync.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();

async function keyState(context: BrowserContext) {
  return keysStateSchema.parse(await (await context.request.get(`${app.server.url}${KEYS_API.keys}`)).json());
}

const ANDROID_PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

let accounts = 0;
/** The signed-in device (a laptop), with its name as its Devices list shows it. */
async function signedInLaptop(): Promise<{ context: BrowserContext; email: string; deviceName: string }> {
  const context = await app.browser.newContext({ viewport: { width: 1280, height: 860 } });
  accounts += 1;
  const email = `add-device${accounts}@example.com`;
  const res = await context.request.post(`${app.server.url}/api/auth/register`, {
    data: { name: `Alex ${accounts}`, email, password: "correct horse", confirm_password: "correct horse" },
  });
  expect(res.status()).toBe(201);
  const list = (await (await context.request.get(`${app.server.url}/api/devices`)).json()) as {
    devices: Array<{ name: string; current: boolean }>;
  };
  const deviceName = list.devices.find((d) => d.current)?.name ?? "";
  expect(deviceName).not.toBe("");
  return { context, email, deviceName };
}

const signedOutPhone = () => app.browser.newContext({ viewport: { width: 412, height: 860 }, userAgent: ANDROID_PHONE, isMobile: true });

describe("add a device", () => {
  it("signs a phone in: Add a device on the welcome panel, the phone opens the QR link, the laptop approves", async () => {
    const { context: laptop, email, deviceName } = await signedInLaptop();
    const page = await laptop.newPage();
    await page.goto(`${app.server.url}/dashboard/home`);
    // The laptop, the account's first device, makes its key before it adds anyone.
    await expect.poll(async () => (await keyState(laptop)).wraps.length, { timeout: 15_000 }).toBe(1);
    await page.getByRole("region", { name: TEXT.atHome }).getByRole("link", { name: "Add a device" }).click();
    await page.getByRole("heading", { name: "Add a device" }).waitFor();
    await page.getByRole("img", { name: /QR code/ }).waitFor();
    expect(await page.getByTestId("offer-short-code").textContent()).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await page.getByText(/Code expires in [12]:\d\d/).waitFor();

    const link = await readQrFromScreen(page);
    expect(link).toMatch(new RegExp(`^${app.server.url}/pair/join/[A-Za-z0-9_-]{22,}#k=[A-Za-z0-9_-]{43}$`));

    const phone = await signedOutPhone();
    const phonePage = await phone.newPage();
    await phonePage.goto(link);
    await phonePage.getByRole("heading", { name: `Waiting for approval on ${deviceName}` }).waitFor();
    // The link alone signs nothing in.
    expect((await phone.request.get(`${app.server.url}/api/me`)).status()).toBe(401);

    await page.getByRole("heading", { name: "Sign in this device?" }).waitFor();
    const facts = await page.locator(".pair-facts").innerText();
    expect(facts).toContain("Chrome");
    expect(facts).toContain("Android");
    expect(facts).toContain("127.0.0.1");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Approved" }).waitFor();

    await phonePage.waitForURL(`${app.server.url}/dashboard`);
    await phonePage.getByText(TEXT.loginSuccessTitle).waitFor();
    await phonePage.getByText(TEXT.loginSuccessBody, { exact: true }).waitFor();
    const me = await phone.request.get(`${app.server.url}/api/me`);
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe(email);

    // The key came with the approval (docs/protocol/encryption.md, "QR pairing handover"), sealed again by the phone for itself.
    await expect.poll(async () => (await keyState(phone)).wraps.map((wrap) => wrap.mode), { timeout: 15_000 }).toEqual(["auth"]);
    const handed = await keyState(phone);
    expect(handed.wraps.map((wrap) => [wrap.epoch, wrap.sender_key_id])).toEqual([[1, handed.key_id]]);
    await phone.close();
    await laptop.close();
  });

  it("signs a phone in holding the key when it types the code shown: one round, no second approval (issue 41)", async () => {
    const { context: laptop, deviceName } = await signedInLaptop();
    const page = await laptop.newPage();
    await page.goto(`${app.server.url}/dashboard`);
    await expect.poll(async () => (await keyState(laptop)).wraps.length, { timeout: 15_000 }).toBe(1);
    await sendMessage(page, "sealed before the phone came");
    await nothingPending(page);
    await page.goto(`${app.server.url}/pair/add`);
    const shortCode = (await page.getByTestId("offer-short-code").textContent()) ?? "";
    expect(shortCode).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);

    const phone = await signedOutPhone();
    const phonePage = await phone.newPage();
    await phonePage.goto(`${app.server.url}/pair/join`);
    await phonePage.getByLabel("Code shown on the other device").fill(shortCode.toLowerCase());
    await phonePage.getByRole("button", { name: "Continue" }).click();
    await phonePage.getByRole("heading", { name: `Waiting for approval on ${deviceName}` }).waitFor();
    // The password half stays on the phone: not in its address.
    expect(phonePage.url()).toBe(`${app.server.url}/pair/join/${shortCode.slice(0, 4)}`);

    await page.getByRole("heading", { name: "Sign in this device?" }).waitFor();
    await page.getByRole("button", { name: "Approve" }).click();
    await visible(page.getByRole("heading", { name: "Approved" }), 30_000);

    await phonePage.waitForURL(`${app.server.url}/dashboard`, { timeout: 30_000 });
    await visible(messageList(phonePage).getByText("sealed before the phone came"), 30_000);
    expect(await phonePage.getByRole("heading", { name: SEALED_TEXT.approveToSend }).count()).toBe(0);
    expect(await phonePage.getByRole("heading", { name: "Approve this device" }).count()).toBe(0);
    await phone.close();
    await laptop.close();
  });

  it("sends a message typed just before Add a device while that page is open, not only back on the dashboard", async () => {
    const { context: laptop } = await signedInLaptop();
    const page = await laptop.newPage();
    await page.goto(`${app.server.url}/dashboard`);
    await expect.poll(async () => (await keyState(laptop)).wraps.length, { timeout: 15_000 }).toBe(1);
    const main = page.getByRole("main");
    const toAddDevice = async () => {
      await page.getByRole("link", { name: "Devices" }).first().click();
      await main.getByRole("link", { name: "Add a device" }).click();
      await page.getByTestId("offer-short-code").waitFor();
    };
    // Once online first, so the page's code is loaded when it is opened offline below.
    await toAddDevice();
    await page.goBack();
    await page.goBack();
    await page.getByLabel("Message", { exact: true }).waitFor();

    await laptop.setOffline(true);
    await sendMessage(page, "typed just before adding a phone");
    await visible(page.locator("[data-pending]"));
    await page.getByRole("link", { name: "Devices" }).first().click();
    await main.getByRole("link", { name: "Add a device" }).click();
    await page.waitForURL(`${app.server.url}/pair/add`);
    await laptop.setOffline(false);
    const stored = async () => {
      const res = await laptop.request.get(`${app.server.url}/api/messages?limit=10`);
      return res.ok() ? ((await res.json()) as { messages: unknown[] }).messages.length : -1;
    };
    await expect.poll(stored, { timeout: 20_000 }).toBe(1);
    expect(page.url()).toBe(`${app.server.url}/pair/add`);
    await laptop.close();
  });

  it("shows 'Login failed / Try again' on the phone when the laptop denies (code typed from the Devices page)", async () => {
    const { context: laptop, deviceName } = await signedInLaptop();
    const page = await laptop.newPage();
    await page.goto(`${app.server.url}/dashboard/devices`);
    await page.getByRole("main").getByRole("link", { name: "Add a device" }).click();
    const shortCode = (await page.getByTestId("offer-short-code").textContent()) ?? "";

    const phone = await signedOutPhone();
    const phonePage = await phone.newPage();
    await phonePage.goto(`${app.server.url}/pair/join`);
    await phonePage.getByLabel("Code shown on the other device").fill(shortCode.toLowerCase());
    await phonePage.getByRole("button", { name: "Continue" }).click();
    await phonePage.getByRole("heading", { name: `Waiting for approval on ${deviceName}` }).waitFor();

    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Denied" }).waitFor();

    await phonePage.getByText(TEXT.loginFailedTitle).first().waitFor();
    await phonePage.getByText(TEXT.loginFailedBody).first().waitFor();
    expect((await phone.request.get(`${app.server.url}/api/me`)).status()).toBe(401);
    await phone.close();
    await laptop.close();
  });

  it("opens Add a device from the user panel", async () => {
    const { context } = await signedInLaptop();
    const page = await context.newPage();
    await page.goto(`${app.server.url}/dashboard`);
    await page.getByRole("complementary", { name: "Sidebar" }).getByRole("link", { name: "Add a device" }).click();
    await page.getByRole("img", { name: /QR code/ }).waitFor();
    expect(page.url()).toBe(`${app.server.url}/pair/add`);
    await context.close();
  });
});

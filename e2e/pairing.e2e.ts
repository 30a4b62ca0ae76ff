/** Sign-in with a connected device, in real Chromium: two browser contexts play the new and the signed-in device. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HANDOVER_TEXT, KEYS_API, keysStateSchema, TEXT } from "@daysync/shared";
import type { BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { chooseFiles, messageList, sendMessage, visible } from "./support/daysync.ts";
import { launchBrowserWithCamera, writeCameraVideo } from "./support/fake-camera.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();

let accounts = 0;

async function keyState(context: BrowserContext) {
  return keysStateSchema.parse(await (await context.request.get(`${app.server.url}${KEYS_API.keys}`)).json());
}
/** A browser context with its own signed-in session (the "phone"). */
async function signedInContext(on = app.browser, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; email: string }> {
  const context = await on.newContext({ viewport: { width: 420, height: 860 }, ...options });
  accounts += 1;
  const email = `pair${accounts}@example.com`;
  const res = await context.request.post(`${app.server.url}/api/auth/register`, {
    data: { name: `Pat ${accounts}`, email, password: "correct horse", confirm_password: "correct horse" },
  });
  expect(res.status()).toBe(201);
  return { context, email };
}

/** The new device: /login, 'Sign in using connected device', QR code on screen. */
async function showQr(page: Page): Promise<void> {
  await page.goto(`${app.server.url}/login`);
  await page.getByRole("button", { name: TEXT.connectedDevice }).click();
  await page.getByRole("img", { name: /QR code/ }).waitFor();
}

async function expectSignedIn(context: BrowserContext, page: Page, email: string): Promise<void> {
  await page.waitForURL(`${app.server.url}/dashboard`);
  await page.getByText(TEXT.loginSuccessTitle).waitFor();
  await page.getByText(TEXT.loginSuccessBody, { exact: true }).waitFor();
  const me = await context.request.get(`${app.server.url}/api/me`);
  expect(me.status()).toBe(200);
  expect(((await me.json()) as { user: { email: string } }).user.email).toBe(email);
}

describe("sign in with a connected device", () => {
  it("signs a new device in when a signed-in device scans its QR code and approves", async () => {
    const { context: phone, email } = await signedInContext();
    const phoneDashboard = await phone.newPage();
    await phoneDashboard.goto(`${app.server.url}/dashboard`);
    await phoneDashboard.getByRole("button", { name: /notifications/i }).waitFor();
    // The phone, the account's first device, makes its key before it approves anyone.
    await expect.poll(async () => (await keyState(phone)).wraps.length, { timeout: 15_000 }).toBe(1);

    const laptop = await app.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const newDevice = await laptop.newPage();
    await showQr(newDevice);
    expect(await newDevice.getByTestId("pairing-short-code").textContent()).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await newDevice.getByText(/Code expires in [12]:\d\d/).waitFor();

    const link = await readQrFromScreen(newDevice);
    expect(link).toMatch(new RegExp(`^${app.server.url}/pair/[A-Za-z0-9_-]{22,}#k=[A-Za-z0-9_-]{43}$`));

    const approver = await phone.newPage();
    await approver.goto(link);
    await approver.getByRole("heading", { name: "Sign in a device?" }).waitFor();
    const facts = await approver.locator(".pair-facts").innerText();
    expect(facts).toContain("Chrome");
    expect(facts).toContain("Linux");
    expect(facts).toContain("127.0.0.1");
    expect(await approver.getByText("Approving signs that device in to your account.").isVisible()).toBe(true);
    await approver.getByRole("button", { name: "Approve" }).click();
    await approver.getByRole("heading", { name: "Approved" }).waitFor();

    await expectSignedIn(laptop, newDevice, email);

    // The phone's open dashboard is told about the new device.
    await phoneDashboard.getByText(/New device signed in: Chrome/).waitFor();

    // Both devices are listed on the Devices page, the new one marked as this device.
    await newDevice.goto(`${app.server.url}/dashboard/devices`);
    await newDevice.locator(".device-row").nth(1).waitFor();
    expect(await newDevice.locator(".device-row").count()).toBe(2);
    expect(await newDevice.getByText("This device", { exact: true }).count()).toBe(1);

    // The key came with the approval (docs/protocol/encryption.md, "QR pairing handover"): the new device holds the epoch, in a wrap it sealed again
    // for itself, so both devices can read.
    const handed = await keyState(laptop);
    expect(handed.wraps.map((wrap) => [wrap.epoch, wrap.mode, wrap.sender_key_id])).toEqual([[1, "auth", handed.key_id]]);
    await expect.poll(async () => newDevice.getByText("Can read your messages", { exact: true }).count(), { timeout: 10_000 }).toBe(2);

    // And they do: a file sealed on the new device opens on the phone, byte for byte, and a text the other way.
    const bytes = Buffer.from("paired by QR, sealed on the laptop\n".repeat(5000));
    await newDevice.goto(`${app.server.url}/dashboard`);
    await chooseFiles(newDevice, [{ name: "handed-over.txt", mimeType: "text/plain", buffer: bytes }]);
    await newDevice.getByRole("button", { name: TEXT.send, exact: true }).click();
    const fileRow = messageList(phoneDashboard).getByRole("listitem").filter({ hasText: "handed-over.txt" });
    await visible(fileRow, 30_000);
    const [download] = await Promise.all([
      phoneDashboard.waitForEvent("download"),
      fileRow.getByRole("link", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("handed-over.txt");
    expect(readFileSync(await download.path()).equals(bytes)).toBe(true);
    await sendMessage(phoneDashboard, "read on the laptop too");
    await visible(messageList(newDevice).getByText("read on the laptop too"), 30_000);
    await phone.close();
    await laptop.close();
  });

  it("refuses to approve when the server swaps the asking device's key, and says why", async () => {
    // The man in the middle: the request's details reach the approving page with another key than the one asked
    // with. Service workers are blocked so that page.route sees the page's own requests.
    const { context: approving } = await signedInContext(app.browser, { serviceWorkers: "block" });
    const dashboard = await approving.newPage();
    await dashboard.goto(`${app.server.url}/dashboard`);
    await expect.poll(async () => (await keyState(approving)).wraps.length, { timeout: 15_000 }).toBe(1);

    const stranger = await app.browser.newContext();
    const newDevice = await stranger.newPage();
    await showQr(newDevice);
    const link = (await readQrFromScreen(newDevice)) ?? "";
    const swapped = Buffer.alloc(32, 7).toString("base64url");
    const approver = await approving.newPage();
    await approver.route("**/api/pair/requests/*", async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { request: { public_key: string | null } };
      await route.fulfill({ response: answer, json: { ...body, request: { ...body.request, public_key: swapped } } });
    });
    await approver.goto(link);
    await approver.getByRole("button", { name: "Approve" }).click();
    await approver.getByRole("alert").getByText(HANDOVER_TEXT.keyNotVerified).waitFor();

    // Denied rather than approved: the new device is told, holds no session, and no wrap went to any key.
    await newDevice.getByText(TEXT.loginFailedTitle).first().waitFor();
    expect((await stranger.request.get(`${app.server.url}/api/me`)).status()).toBe(401);
    expect((await keyState(approving)).holders).toHaveLength(1);
    await approving.close();
    await stranger.close();
  });

  it("shows 'Login failed / Try again' when the request is denied (code typed by hand)", async () => {
    const { context: phone } = await signedInContext();
    const stranger = await app.browser.newContext();
    const newDevice = await stranger.newPage();
    await showQr(newDevice);
    const shortCode = (await newDevice.getByTestId("pairing-short-code").textContent()) ?? "";

    const approver = await phone.newPage();
    await approver.goto(`${app.server.url}/pair`);
    await approver.getByLabel("Code shown on the other device").fill(shortCode.toLowerCase());
    await approver.getByRole("button", { name: "Continue" }).click();
    await approver.getByRole("button", { name: "Deny" }).click();
    await approver.getByRole("heading", { name: "Denied" }).waitFor();

    await newDevice.getByText(TEXT.loginFailedTitle).first().waitFor();
    await newDevice.getByText(TEXT.loginFailedBody).first().waitFor();
    await newDevice.getByRole("button", { name: "Show a new code" }).waitFor();
    expect(newDevice.url()).toBe(`${app.server.url}/login`);
    expect((await stranger.request.get(`${app.server.url}/api/me`)).status()).toBe(401);
    await phone.close();
    await stranger.close();
  });

  it("shows a new code by itself before the old one expires", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.server.url}/login`);
    await page.getByRole("heading", { name: TEXT.loginHeading }).waitFor();
    // The fake clock drives only the panel's timers, not the page's loading.
    await page.clock.install();
    await page.getByRole("button", { name: TEXT.connectedDevice }).click();
    await page.getByRole("img", { name: /QR code/ }).waitFor();
    const first = await page.getByTestId("pairing-short-code").textContent();
    await page.clock.fastForward(100_000);
    await page.getByText(/Code expires in 0:[12]\d/).waitFor();
    expect(await page.getByTestId("pairing-short-code").textContent()).toBe(first);
    await page.clock.fastForward(11_000);
    await page.waitForFunction((old) => document.querySelector('[data-testid="pairing-short-code"]')?.textContent !== old, first);
    await page.getByText(/Code expires in [12]:\d\d/).waitFor();
    await context.close();
  });

  it("reads the QR code with the in-app scanner (camera) and signs the device in", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "daysync-camera-"));
    const laptop = await app.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const newDevice = await laptop.newPage();
    await showQr(newDevice);
    const video = path.join(dir, "qr.y4m");
    await writeCameraVideo(await newDevice.getByRole("img", { name: /QR code/ }).screenshot(), video);

    const cameraBrowser = await launchBrowserWithCamera(video);
    try {
      const { context: phone, email } = await signedInContext(cameraBrowser);
      const approver = await phone.newPage();
      await approver.goto(`${app.server.url}/pair`);
      await approver.getByRole("button", { name: "Scan with the camera" }).click();
      await approver.getByRole("heading", { name: "Sign in a device?" }).waitFor({ timeout: 15_000 });
      expect(approver.url()).toMatch(new RegExp(`^${app.server.url}/pair/[A-Za-z0-9_-]{22,}$`));
      await approver.getByRole("button", { name: "Approve" }).click();
      await expectSignedIn(laptop, newDevice, email);
    } finally {
      await cameraBrowser.close();
      await laptop.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says so when there is no camera, and the code can be typed instead", async () => {
    const { context } = await signedInContext();
    const page = await context.newPage();
    await page.goto(`${app.server.url}/pair`);
    await page.getByRole("button", { name: "Scan with the camera" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /camera/ })
      .waitFor();
    expect(await page.getByLabel("Code shown on the other device").isVisible()).toBe(true);
    await context.close();
  });
});

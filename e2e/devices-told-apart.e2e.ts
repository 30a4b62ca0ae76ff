/**
 * Issue 43: Devices tells devices apart. Two phones of one browser and system are listed under their models, each
 * with the time it was added, and a phone whose request to be approved was denied is listed as denied, not as
 * "Waiting for approval".
 */
import { APP_ROUTES, SEALED_TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, keyStateOf, newDevice, registerViaApi, signInViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const chromeOnAndroid = (model: string) =>
  `Mozilla/5.0 (Linux; Android 14; ${model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`;

async function phone(browser: Browser, baseURL: string, model: string, email: string): Promise<Device> {
  const context = await browser.newContext({ baseURL, userAgent: chromeOnAndroid(model), viewport: { width: 1280, height: 800 } });
  const device = { context, page: await context.newPage() };
  await signInViaApi(device, baseURL, email);
  return device;
}

describe("Devices tells devices apart (issue 43)", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("lists two phones of one browser and system by model, with the time each was added, and a denied one as denied", async () => {
    const email = uniqueEmail("told-apart");
    const laptop = await newDevice(browser, server.url);
    await registerViaApi(laptop, server.url, "Tia Twins", email);
    await laptop.page.goto(APP_ROUTES.dashboard);
    await expect.poll(async () => (await keyStateOf(laptop, server.url)).wraps.length, { timeout: 15_000 }).toBe(1);
    const pixel = await phone(browser, server.url, "Pixel 8", email);
    const galaxy = await phone(browser, server.url, "SM-S921B", email);

    // The Galaxy asks to be approved, and the laptop denies it.
    await galaxy.page.goto(APP_ROUTES.dashboard);
    await visible(galaxy.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }), 15_000);
    await (await visible(laptop.page.getByRole("button", { name: /^Deny / }), 15_000)).click();
    await visible(galaxy.page.getByRole("alert").filter({ hasText: "The request was ended on one of your devices." }), 15_000);
    await pixel.page.goto(APP_ROUTES.dashboard);
    await visible(pixel.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }), 15_000);

    await laptop.page.goto(APP_ROUTES.devices);
    const rows = laptop.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
    const pixelRow = rows.filter({ hasText: "Chrome 124 on Pixel 8 (Android 14)" });
    const galaxyRow = rows.filter({ hasText: "Chrome 124 on SM-S921B (Android 14)" });
    await visible(pixelRow);
    await visible(galaxyRow);
    for (const row of [pixelRow, galaxyRow]) expect(await row.innerText()).toMatch(/Added \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}/);
    await visible(galaxyRow.getByText("Request denied: sign in again on it to ask once more"));
    expect(await galaxyRow.getByText("Waiting for approval").count()).toBe(0);
    await visible(pixelRow.getByText("Waiting for approval"));
    for (const device of [laptop, pixel, galaxy]) await device.context.close();
  });
});

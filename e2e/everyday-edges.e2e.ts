/** Everyday edges in real Chromium: an offline start that recovers. */
import { API, TEXT } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { newDevice, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp();

describe("offline start", () => {
  it("Try again asks the server again, and the page recovers by itself once the network is back", async () => {
    const device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Olive Offline", uniqueEmail("offline"));
    const { page, context } = device;
    await page.goto("/dashboard");
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });

    // Offline from the start: the service worker serves the shell, the session check fails.
    await context.setOffline(true);
    await page.reload();
    await visible(page.getByRole("heading", { name: "Daysync is not reachable" }), 20_000);
    const asked: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === API.session) asked.push(request.url());
    });
    // The browser also announces it (as it does when the network drops while the page is open).
    await page.evaluate(() => window.dispatchEvent(new Event("offline")));
    await page.getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => asked.length, { timeout: 5_000 }).toBeGreaterThan(0);
    await visible(page.getByRole("heading", { name: "Daysync is not reachable" }), 10_000);

    // Back online: no click needed.
    await context.setOffline(false);
    await visible(page.getByPlaceholder(TEXT.messagePlaceholder), 15_000);
    expect(await page.getByRole("heading", { name: "Daysync is not reachable" }).count()).toBe(0);
    await context.close();
  });
});

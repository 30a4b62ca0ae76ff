import { TEXT } from "@daysync/shared";
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { collectErrors, newDevice, openSignInPage, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";

/** The drawing of the logo inside a brand link: what it paints, whatever size it is drawn at. */
async function logoDrawing(link: Locator): Promise<string> {
  await visible(link);
  return link
    .locator("svg")
    .first()
    .evaluate((svg) => `${svg.getAttribute("viewBox")}|${svg.innerHTML}`);
}

describe("the sign-in pages' frame: footer, theme and logo", () => {
  const app = useStartedApp();

  for (const [screen, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 412, height: 823 }],
  ] as const) {
    it(`the sign-in footer shows 'Version 1.0.0', and no copyright of a brand this server did not set, on a ${screen}`, async () => {
      const { context, page } = await newDevice(app.browser, app.server.url, viewport);
      for (const path of ["/login", "/register"] as const) {
        await openSignInPage(page, path);
        const footer = page.getByRole("contentinfo");
        await visible(footer.getByText("Version 1.0.0", { exact: true }));
        expect(await footer.getByText("©").count()).toBe(0);
      }
      await context.close();
    });
  }

  it("switches the sign-in page to the dark theme, remembers it, and loads it again without a mismatch", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.emulateMedia({ colorScheme: "light" });
    const errors = collectErrors(page);
    await openSignInPage(page, "/login");
    const toggle = await visible(page.getByRole("button", { name: "Dark theme" }));
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-pressed")).toBe("true");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");

    await openSignInPage(page, "/register");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await page.reload();
    await page.locator('form button[type="submit"]:enabled').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    const again = page.getByRole("button", { name: "Dark theme" });
    await page.waitForFunction(() => document.querySelector('button[aria-label="Dark theme"]')?.getAttribute("aria-pressed") === "true");
    await again.click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("draws one logo on the landing, sign-in, register, pair and dashboard pages", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/");
    const landing = await logoDrawing(page.getByRole("link", { name: "Daysync home" }));
    expect(landing).toContain("<rect");

    const drawings: Record<string, string> = {};
    for (const path of ["/login", "/register"] as const) {
      await openSignInPage(page, path);
      drawings[path] = await logoDrawing(
        page.getByRole("region", { name: `About ${TEXT.productName}` }).getByRole("link", { name: TEXT.productName }),
      );
    }
    await registerViaApi({ context, page }, app.server.url, "Logo Looker", uniqueEmail("logo"));
    await page.goto("/pair");
    drawings["/pair"] = await logoDrawing(page.getByRole("banner").getByRole("link", { name: TEXT.productName }));
    await page.goto("/dashboard");
    drawings["/dashboard"] = await logoDrawing(
      page.getByRole("complementary", { name: "Sidebar" }).getByRole("link", { name: TEXT.productName }),
    );

    expect(drawings).toEqual({ "/login": landing, "/register": landing, "/pair": landing, "/dashboard": landing });
    await context.close();
  });

  it("names the Devices page's button in the connected-device panel as that button is labelled", async () => {
    const signedOut = await newDevice(app.browser, app.server.url);
    await openSignInPage(signedOut.page, "/login");
    await signedOut.page.getByRole("button", { name: TEXT.connectedDevice }).click();
    const panel = await visible(signedOut.page.getByRole("complementary"));
    const named = /Devices → (.+?)\)/.exec((await panel.textContent()) ?? "")?.[1];
    expect(named).toBe("Scan or type a code");

    const signedIn = await newDevice(app.browser, app.server.url);
    await registerViaApi(signedIn, app.server.url, "Button Reader", uniqueEmail("pairbutton"));
    await signedIn.page.goto("/dashboard/devices");
    await visible(signedIn.page.getByRole("main").getByRole("link", { name: named, exact: true }));
    await signedOut.context.close();
    await signedIn.context.close();
  });
});

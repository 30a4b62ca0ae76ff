/**
 * Rough edges a newcomer hits (issue 27), in real Chromium: layouts at 1280 and 390 px in both themes checked by
 * element boxes, toasts clear of the sign-in heading with a close button one can see, the plan's storage, naming a
 * device just signed in, the register form's password rule and "Sign in instead", and the 404 page.
 */
import { randomUUID } from "node:crypto";
import { API, DEVICES_API, formatStoredDate, SEALED_TEXT, TEXT, VALIDATION } from "@daysync/shared";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { fieldHint, keyStateOf, newDevice, openSignInPage, PASSWORD, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp();

const THEMES = ["light", "dark"] as const;
const PHONE = { width: 390, height: 844 };
const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

type Box = { x: number; y: number; width: number; height: number };

const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function boxOf(page: Page, selector: string): Promise<Box> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} has no box`);
  return box;
}

/** Elements inside `selector` whose content is cut off or that stick out of it sideways (by class or tag). */
function clippedInside(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return [`no ${sel}`];
    const outer = root.getBoundingClientRect();
    const name = (el: Element) => `${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""}`;
    const bad: string[] = [];
    for (const el of [root, ...root.querySelectorAll("*")]) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== "inline") bad.push(`${name(el)} scrolls`);
      if (el !== root && (r.left < outer.left - 1 || r.right > outer.right + 1)) bad.push(`${name(el)} sticks out`);
    }
    if (outer.left < 0 || outer.right > document.documentElement.clientWidth) bad.push(`${sel} leaves the screen`);
    return bad;
  }, selector);
}

/** How many lines the text inside an element takes on screen: its text's boxes, grouped by their top (icons aside). */
function linesOf(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const tops: number[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.push(r.top);
      }
      tops.sort((a, b) => a - b);
      return tops.filter((top, i) => i === 0 || top - (tops[i - 1] ?? top) > 4).length;
    });
}

/** WCAG contrast of the toast close button (its colour at its opacity, over the toast) against the toast. */
function closeButtonContrast(page: Page): Promise<number> {
  return page.evaluate(() => {
    const button = document.querySelector(".Toastify__toast .Toastify__close-button");
    const toast = button?.closest(".Toastify__toast");
    if (!button || !toast) return 0;
    const rgba = (text: string) => (text.match(/[\d.]+/g) ?? []).map(Number);
    const [fr = 0, fg = 0, fb = 0, fa = 1] = rgba(getComputedStyle(button).color);
    const [br = 0, bg = 0, bb = 0] = rgba(getComputedStyle(toast).backgroundColor);
    const alpha = fa * Number(getComputedStyle(button).opacity);
    const shown = [fr * alpha + br * (1 - alpha), fg * alpha + bg * (1 - alpha), fb * alpha + bb * (1 - alpha)];
    const luminance = (c: number[]) => {
      const [r = 0, g = 0, b = 0] = c.map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [hi, lo] = [luminance(shown), luminance([br, bg, bb])].sort((a, b) => b - a);
    return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
  });
}

describe("the sign-in page with the connected-device panel open", () => {
  it.each([
    [1280, 800],
    [390, 844],
  ])("at %i px keeps the panel clear of the card and the theme button, nothing cut off, in both themes", async (width, height) => {
    const { context, page } = await newDevice(app.browser, app.server.url, { width, height });
    await openSignInPage(page, "/login");
    await page.getByRole("button", { name: TEXT.connectedDevice }).click();
    await visible(page.getByTestId("pairing-short-code"));
    for (const colorScheme of THEMES) {
      await page.emulateMedia({ colorScheme });
      const [panel, card, theme] = await Promise.all([boxOf(page, ".auth-aside"), boxOf(page, ".auth-card"), boxOf(page, ".auth-theme")]);
      expect(overlap(panel, card), `${colorScheme}: panel over the card`).toBe(false);
      expect(overlap(panel, theme), `${colorScheme}: panel under the theme button`).toBe(false);
      expect(overlap(card, theme), `${colorScheme}: card under the theme button`).toBe(false);
      expect(await clippedInside(page, ".auth-aside"), colorScheme).toEqual([]);
      expect(await clippedInside(page, ".auth-card"), colorScheme).toEqual([]);
    }
    await context.close();
  });
});

describe("the day header on a phone", () => {
  it("keeps 'Clear this day' on one line and the weekday with its count, in both themes; the toast's close button shows", async () => {
    const device = await newDevice(app.browser, app.server.url, PHONE);
    await registerViaApi(device, app.server.url, "Hedda Header", uniqueEmail("header"));
    for (const content of ["one", "two"]) {
      const res = await device.context.request.post(`${app.server.url}${API.messages}`, {
        data: { id: randomUUID(), content, date: formatStoredDate(new Date()), time: "9:00 AM" },
      });
      expect(res.status()).toBe(201);
    }
    const { page } = device;
    await page.goto("/dashboard");
    const clear = await visible(page.getByRole("button", { name: "Clear this day" }));
    await visible(page.getByText("2 messages"));
    for (const colorScheme of THEMES) {
      await page.emulateMedia({ colorScheme });
      expect(await linesOf(page, ".day-header > .btn"), colorScheme).toBe(1);
      expect(await linesOf(page, ".day-facts"), colorScheme).toBe(1);
      expect(overlap(await boxOf(page, ".day-heading"), await boxOf(page, ".day-header > .btn"))).toBe(false);
      expect(await clippedInside(page, ".day-header"), colorScheme).toEqual([]);
    }

    await clear.click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await visible(page.locator(".Toastify__toast").filter({ hasText: "2 messages deleted." }));
    for (const colorScheme of THEMES) {
      await page.emulateMedia({ colorScheme });
      // Read once the theme's colours have settled (the button eases between them).
      await expect.poll(() => closeButtonContrast(page), { message: colorScheme, timeout: 3_000 }).toBeGreaterThanOrEqual(3);
    }
    await device.context.close();
  });
});

describe("a toast on the sign-in page", () => {
  it("leaves its heading uncovered, at 390 and 1280 px", async () => {
    const device = await newDevice(app.browser, app.server.url, PHONE);
    await registerViaApi(device, app.server.url, "Tove Toast", uniqueEmail("signin-toast"));
    const { page } = device;
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/dashboard");
    await visible(page.getByText(TEXT.noMessages));
    // Signed out from elsewhere (here, by its own cookie): the page says so in a toast and goes to sign-in.
    expect((await device.context.request.post(`${app.server.url}${API.logout}`)).status()).toBe(204);
    const toast = await visible(page.locator(".Toastify__toast").filter({ hasText: "You were signed out on this device." }));
    const heading = await visible(page.getByRole("heading", { name: TEXT.loginHeading }));
    for (const size of [PHONE, { width: 1280, height: 800 }]) {
      await page.setViewportSize(size);
      const [toastBox, headingBox] = await Promise.all([toast.boundingBox(), heading.boundingBox()]);
      expect(toastBox && headingBox && overlap(toastBox, headingBox), `${size.width} px`).toBe(false);
    }
    await expect.poll(() => closeButtonContrast(page), { timeout: 3_000 }).toBeGreaterThanOrEqual(3);
    await device.context.close();
  });
});

describe("the plan page", () => {
  it("shows the storage used against the plan's, and the plan's file limit", async () => {
    const device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Pia Plan", uniqueEmail("plan"));
    // An upload under way counts at its declared length.
    const at = new Date();
    const meta = {
      filename: "big.bin",
      filetype: "application/octet-stream",
      message_id: randomUUID(),
      date: formatStoredDate(at),
      time: "9:00 AM",
    };
    const upload = await device.context.request.post(`${app.server.url}${API.uploads}`, {
      headers: {
        "tus-resumable": "1.0.0",
        "upload-length": String(3 * 1024 * 1024),
        "upload-metadata": Object.entries(meta)
          .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
          .join(","),
      },
    });
    expect(upload.status()).toBe(201);
    const { page } = device;
    await page.goto("/dashboard/plan");
    const meter = await visible(page.getByRole("meter", { name: "Files" }));
    expect(await meter.getAttribute("aria-valuetext")).toBe("3 MiB of 1 GiB used");
    await visible(page.getByText("3 MiB of 1 GiB used"));
    await visible(page.getByText("Each file can be up to 100 MiB."));
    await device.context.close();
  });
});

describe("a device just signed in", () => {
  it("is offered a name (a guess, to save or skip); Devices draws phones and computers apart; the welcome speaks to a phone", async () => {
    const email = uniqueEmail("names");
    const laptop = await newDevice(app.browser, app.server.url);
    await registerViaApi(laptop, app.server.url, "Nina Names", email);

    const phoneContext = await app.browser.newContext({
      baseURL: app.server.url,
      viewport: PHONE,
      userAgent: IPHONE_UA,
      isMobile: true,
      hasTouch: true,
    });
    const phone = await phoneContext.newPage();
    await openSignInPage(phone, "/login");
    await phone.getByLabel("Email", { exact: true }).fill(email);
    await phone.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await phone.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    const prompt = await visible(phone.getByRole("region", { name: "Name this device" }));
    const field = prompt.getByLabel("Device name");
    expect(await field.inputValue()).toBe("iPhone");
    await field.fill("Nina's iPhone");
    await prompt.getByRole("button", { name: "Save name" }).click();
    await prompt.waitFor({ state: "detached" });

    // Written on the phone, the first-run steps say what to do on the computer.
    await phone.goto("/dashboard/home");
    await visible(phone.getByText("scan its code with this phone", { exact: false }));
    expect(await phone.getByText("point the phone's camera", { exact: false }).count()).toBe(0);
    // The prompt was answered: it does not come back.
    expect(await phone.getByRole("region", { name: "Name this device" }).count()).toBe(0);

    await laptop.page.goto("/dashboard/devices");
    const rows = laptop.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    await visible(rows.filter({ hasText: "Nina's iPhone" }).getByRole("img", { name: "Phone" }));
    await visible(rows.filter({ hasText: "This device" }).getByRole("img", { name: "Computer" }));
    // The laptop registered: it was not asked, and its welcome points the phone's camera at its code.
    expect(await laptop.page.getByRole("region", { name: "Name this device" }).count()).toBe(0);
    await laptop.page.goto("/dashboard/home");
    await visible(laptop.page.getByText("point the phone's camera at the code", { exact: false }));

    // Skipped on another computer: the name stays the browser's, and the prompt goes.
    const other = await newDevice(app.browser, app.server.url);
    await openSignInPage(other.page, "/login");
    await other.page.getByLabel("Email", { exact: true }).fill(email);
    await other.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await other.page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    const skipped = await visible(other.page.getByRole("region", { name: "Name this device" }));
    // Signed in by password, the device is locked, and says so above the prompt.
    await visible(other.page.getByText(SEALED_TEXT.approveToSend, { exact: true }));
    await skipped.getByRole("button", { name: "Skip" }).click();
    await skipped.waitFor({ state: "detached" });
    const listed = await other.context.request.get(`${app.server.url}${DEVICES_API.list}`);
    const { devices } = (await listed.json()) as { devices: { name: string; current: boolean }[] };
    expect(devices.find((d) => d.current)?.name).toMatch(/ on Linux$/);

    await Promise.all([laptop.context.close(), phoneContext.close(), other.context.close()]);
  });

  it("offers the name only once the locked notice above it is there, so Skip does not move under a click", async () => {
    const email = uniqueEmail("still");
    const [first, second] = await Promise.all([newDevice(app.browser, app.server.url), newDevice(app.browser, app.server.url)]);
    await registerViaApi(first, app.server.url, "Sam Still", email);
    await first.page.goto("/dashboard/home");
    await expect.poll(async () => (await keyStateOf(first, app.server.url)).wraps.length, { timeout: 15_000 }).toBe(1);

    // A slow answer about the keys (a phone on a poor network): the locked notice can only come after it.
    await second.page.route("**/api/keys", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    });
    await openSignInPage(second.page, "/login");
    await second.page.getByLabel("Email", { exact: true }).fill(email);
    await second.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await second.page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    const prompt = second.page.getByRole("region", { name: "Name this device" });
    await visible(prompt.getByRole("button", { name: "Skip" }), 15_000);
    expect(await second.page.getByText(SEALED_TEXT.approveToSend, { exact: true }).isVisible()).toBe(true);

    await Promise.all([first.context.close(), second.context.close()]);
  });
});

describe("the register form", () => {
  it("says the password rule under the field before anything is sent, and offers 'Sign in instead' for a known email", async () => {
    const email = uniqueEmail("taken");
    const first = await newDevice(app.browser, app.server.url);
    await registerViaApi(first, app.server.url, "Tara Taken", email);
    await first.context.close();

    const { context, page } = await newDevice(app.browser, app.server.url);
    await openSignInPage(page, "/register");
    expect(await fieldHint(page, "Password")).toBe(VALIDATION.passwordRule);
    await visible(page.getByText(VALIDATION.passwordRule));

    await page.getByLabel("Name", { exact: true }).fill("Tara Again");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: TEXT.register }).click();
    await page.getByRole("link", { name: "Sign in instead" }).click();
    await page.waitForURL(`${app.server.url}/login`);
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("type")), { timeout: 5_000 }).toBe("password");
    await context.close();
  });
});

describe("an unknown address", () => {
  it("answers 404 and shows the error screen with a link home", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    const res = await page.goto("/no-such-page");
    expect(res?.status()).toBe(404);
    await visible(page.getByRole("heading", { name: TEXT.errorHeading }));
    await visible(page.getByText(TEXT.notFound));
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await page.waitForURL(`${app.server.url}/`);
    await context.close();
  });
});

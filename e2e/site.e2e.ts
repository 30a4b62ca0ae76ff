/** The public pages: landing sections and anchors, header links, /home's buttons, meta tags, theme toggle. */
import { API, TEXT } from "@daysync/shared";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";

const app = useStartedApp();

async function open(path: string, options: Parameters<Browser["newContext"]>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await app.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  await page.goto(`${app.server.url}${path}`);
  await page.locator("main h1").waitFor();
  return { context, page };
}

describe("landing page", () => {
  it("shows its sections in the spec's order, with the tagline as heading", async () => {
    const { context, page } = await open("/");
    const ids = await page.locator("main > section").evaluateAll((sections) => sections.map((s) => s.id));
    // No Contact section: this server's owner set no contact details (owner-install.e2e.ts shows it where set).
    expect(ids).toEqual(["hero", "about", "featured", "steps", "features", "gallery", "pricing", "faq"]);
    expect(await page.locator("#hero h1").textContent()).toBe(TEXT.tagline);
    const steps = await page.locator("#steps li h3").allTextContents();
    expect(steps).toEqual(["Copy on your phone", "Instant sync", "Paste on your PC"]);
    await context.close();
  });

  it("is also served at /landing", async () => {
    const { context, page } = await open("/landing");
    expect(await page.locator("#hero h1").textContent()).toBe(TEXT.tagline);
    await context.close();
  });

  it("links the header to the anchors, and a click scrolls to the section", async () => {
    const { context, page } = await open("/");
    const nav = page.getByRole("navigation", { name: "Sections" });
    const hrefs = await nav.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(hrefs).toEqual(expect.arrayContaining(["#hero", "#about", "#features", "#faq"]));
    expect(hrefs).not.toContain("#contact");
    await nav.getByRole("link", { name: "FAQ" }).click();
    await page.waitForFunction(() => location.hash === "#faq");
    await page.waitForFunction(() => {
      const box = document.getElementById("faq")?.getBoundingClientRect();
      return box !== undefined && box.top < window.innerHeight && box.bottom > 0;
    });
    await context.close();
  });

  it("has a Login link that opens /login", async () => {
    const { context, page } = await open("/");
    await page.getByRole("banner").getByRole("link", { name: "Login" }).click();
    await page.waitForURL(`${app.server.url}/login`);
    await page.getByText(TEXT.loginHeading).waitFor();
    await context.close();
  });

  it("offers the dashboard instead of Login and Register to a signed-in visitor", async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const email = `site-${Date.now()}@example.com`;
    const registered = await context.request.post(`${app.server.url}${API.register}`, {
      data: { name: "Sam Site", email, password: "site-password-1", confirm_password: "site-password-1" },
    });
    expect(registered.status()).toBe(201);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/`);
    const header = page.getByRole("banner");
    await header.getByRole("link", { name: "Open dashboard" }).waitFor();
    expect(await header.getByRole("link", { name: "Open dashboard" }).getAttribute("href")).toBe("/dashboard");
    expect(await header.getByRole("link", { name: "Login" }).count()).toBe(0);
    await context.close();
  });

  it("has no store badges the owner did not set, pricing without prices, the six questions and the footer", async () => {
    const { context, page } = await open("/");
    const hero = page.locator("#hero");
    expect(await hero.locator(".store-button").count()).toBe(0);

    // This server takes no payments: the pricing says so, once it has asked the server, and names no price.
    await page.locator("#pricing").getByText("does not take payments").waitFor();
    const pricing = await page.locator("#pricing").textContent();
    for (const text of ["15 min", "1 h, 24 h or unlimited", "7 or 30 days", "npm run admin"]) {
      expect(pricing).toContain(text);
    }
    expect(pricing).not.toMatch(/\$\d/);
    const questions = await page.locator("#faq summary").allTextContents();
    expect(questions).toHaveLength(6);
    const faq = await page.locator("#faq").textContent();
    for (const text of [`'${TEXT.today}'`, `'${TEXT.privateMessages}'`, `'${TEXT.newDiscussion}'`, `'${TEXT.discussions}'`, "QR code"]) {
      expect(faq).toContain(text);
    }
    const footer = await page.getByRole("contentinfo").textContent();
    expect(footer).not.toContain("Daysync Labs");
    expect(footer).toContain(TEXT.version);
    await context.close();
  });

  it("has an Install the app button that explains how to add Daysync when the browser offers no prompt", async () => {
    const { context, page } = await open("/");
    // Headless Chromium never fires beforeinstallprompt, as on iOS Safari or Firefox.
    const install = page.locator("#hero").getByRole("button", { name: "Install the app" });
    await install.click();
    const dialog = page.getByRole("dialog", { name: "How to install Daysync" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Add to Home Screen");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await install.evaluate((el) => el === document.activeElement)).toBe(true);
    await context.close();
  });

  it("opens the browser's install prompt from Install the app when the browser offers one", async () => {
    const { context, page } = await open("/");
    await page.evaluate(() => {
      const event = Object.assign(new Event("beforeinstallprompt", { cancelable: true }), {
        prompt: async () => {
          (window as unknown as { prompted: number }).prompted = ((window as unknown as { prompted?: number }).prompted ?? 0) + 1;
        },
        userChoice: Promise.resolve({ outcome: "accepted" }),
      });
      window.dispatchEvent(event);
      (window as unknown as { installDefaultPrevented: boolean }).installDefaultPrevented = event.defaultPrevented;
    });
    expect(await page.evaluate(() => (window as unknown as { installDefaultPrevented: boolean }).installDefaultPrevented)).toBe(true);
    await page.locator("#hero").getByRole("button", { name: "Install the app" }).click();
    await page.locator("#hero").getByRole("status").getByText("Daysync is being installed").waitFor();
    expect(await page.evaluate(() => (window as unknown as { prompted?: number }).prompted)).toBe(1);
    expect(await page.getByRole("dialog", { name: "How to install Daysync" }).isVisible()).toBe(false);
    await context.close();
  });

  it("sets the title, description and social-preview tags", async () => {
    const { context, page } = await open("/");
    expect(await page.title()).toContain(TEXT.tagline);
    const meta = async (selector: string) => page.locator(selector).getAttribute("content");
    expect(await meta('meta[name="description"]')).toMatch(/Daysync/);
    expect(await meta('meta[property="og:title"]')).toContain(TEXT.tagline);
    expect(await meta('meta[property="og:image"]')).toMatch(/\/og-image\.png$/);
    expect(await meta('meta[name="twitter:card"]')).toBe("summary_large_image");
    const image = await context.request.get(`${app.server.url}/og-image.png`);
    expect(image.headers()["content-type"]).toBe("image/png");
    await context.close();
  });
});

describe("home page", () => {
  it("has use cases and a download button that explains how to install", async () => {
    const { context, page } = await open("/home");
    expect(await page.locator("#use-cases li").count()).toBeGreaterThanOrEqual(3);
    // Headless Chromium never offers its install prompt, so the explanation opens.
    await page.getByRole("button", { name: "Download Daysync" }).click();
    const dialog = page.getByRole("dialog", { name: "How to install Daysync" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Add to Home Screen");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await context.close();
  });

  it("has a donation button that says where donations happen", async () => {
    const { context, page } = await open("/home");
    await page.getByRole("button", { name: "Donate" }).click();
    const dialog = page.getByRole("dialog", { name: "Thank you for thinking of us" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("mobile app");
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.title()).toContain("use cases");
    await context.close();
  });
});

describe("privacy page", () => {
  it("says what the server keeps, for how long and who can read it, linked from the footer and the FAQ", async () => {
    const { context, page } = await open("/");
    expect(await page.locator("#faq").getByRole("link", { name: "Privacy" }).getAttribute("href")).toBe("/privacy");
    await page.getByRole("contentinfo").getByRole("link", { name: "Privacy" }).click();
    await page.waitForURL(`${app.server.url}/privacy`);
    await page.getByRole("heading", { level: 1, name: "Privacy" }).waitFor();
    const headings = await page.locator("main h2").allTextContents();
    expect(headings).toEqual(["What the server keeps", "For how long", "Who can read it"]);
    const text = await page.locator("main").textContent();
    for (const said of ["15 minutes", "7 days", "end-to-end encrypted", "when each joined and left", "one-way hash"]) {
      expect(text).toContain(said);
    }
    const response = await page.request.get(`${app.server.url}/privacy`);
    expect(response.status()).toBe(200);
    await context.close();
  });
});

describe("theme", () => {
  it("follows the system until the toggle is used, then remembers the choice across reloads", async () => {
    const { context, page } = await open("/", { colorScheme: "dark" });
    const toggle = page.getByRole("button", { name: "Dark theme" });
    expect(await toggle.getAttribute("aria-pressed")).toBe("true");
    expect(await page.evaluate(() => document.documentElement.dataset.theme ?? null)).toBeNull();

    await toggle.click();
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();

    await page.reload();
    await page.locator("main h1").waitFor();
    expect(await page.evaluate(() => localStorage.getItem("daysync-theme"))).toBe("light");
    expect(await page.getByRole("button", { name: "Dark theme" }).getAttribute("aria-pressed")).toBe("false");
    expect(await background()).toBe(light);

    await page.getByRole("button", { name: "Dark theme" }).click();
    await page.reload();
    await page.locator("main h1").waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    expect(await background()).not.toBe(light);
    await context.close();
  });
});

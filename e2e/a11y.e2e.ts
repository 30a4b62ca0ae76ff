/** axe-core in the page: no serious or critical violations on the public pages, sign-in, the dashboard, Settings and a discussion. */
import { API, DISCUSSION_ROUTES, DISCUSSIONS_API, formatStoredDate, formatStoredTime, responseSchemas, TEXT } from "@daysync/shared";
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { audit, type Finding } from "./support/axe.ts";

const app = useStartedApp();

async function newContext(theme: "light" | "dark", width = 1280): Promise<BrowserContext> {
  return app.browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme, reducedMotion: "reduce" });
}

async function signUp(context: BrowserContext): Promise<void> {
  const email = `a11y-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const response = await context.request.post(`${app.server.url}${API.register}`, {
    data: { name: "Ada Access", email, password: "a11y-password-1", confirm_password: "a11y-password-1" },
  });
  expect(response.status()).toBe(201);
}

describe.each(["light", "dark"] as const)("accessibility, %s theme", (theme) => {
  it.each(["/", "/home", "/login", "/register"])("%s has no serious or critical violations", async (path) => {
    const context = await newContext(theme);
    const page = await context.newPage();
    await page.goto(`${app.server.url}${path}`);
    await page.locator("h1").first().waitFor();
    await page.waitForLoadState("networkidle");
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it("/ with its animations playing (as most visitors and Lighthouse see it) has none at any point of their cycle", async () => {
    // The other checks ask for reduced motion, which stops the hero art's animations: a fade there went unseen.
    const context = await app.browser.newContext({
      viewport: { width: 412, height: 823 },
      colorScheme: theme,
      reducedMotion: "no-preference",
    });
    const page = await context.newPage();
    await page.goto(`${app.server.url}/`);
    await page.locator("h1").first().waitFor();
    await page.waitForLoadState("networkidle");
    const findings: Record<string, Finding[]> = {};
    for (const progress of [0, 0.2, 0.4, 0.45, 0.5, 0.6, 0.8]) {
      // Every running animation held at the same point of its own cycle, so axe reads one frame.
      const paused = await page.evaluate((at) => {
        const animations = document.getAnimations();
        for (const animation of animations) {
          const duration = Number(animation.effect?.getComputedTiming().duration ?? 0);
          animation.pause();
          animation.currentTime = at * duration;
        }
        return animations.length;
      }, progress);
      expect(paused).toBeGreaterThan(0);
      const found = await audit(page);
      if (found.length) findings[`${progress * 100}% of the cycle`] = found;
    }
    expect(findings).toEqual({});
    await context.close();
  });

  it("the landing with its gallery loaded and the lightbox open has none either", async () => {
    const context = await newContext(theme);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/`);
    await page.locator("#gallery").scrollIntoViewIfNeeded();
    await page.locator("#gallery .gallery__thumb").first().waitFor();
    expect(await audit(page)).toEqual([]);
    await page.locator("#gallery .gallery__thumb").nth(2).click();
    await page.getByRole("dialog", { name: "Screenshot viewer" }).waitFor();
    await page.waitForTimeout(400);
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it("the landing on a phone has none", async () => {
    const context = await newContext(theme, 390);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/`);
    await page.getByRole("button", { name: "Menu" }).click();
    await page.locator("#gallery").scrollIntoViewIfNeeded();
    await page.locator("#gallery .gallery__thumb").first().waitFor();
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it("the dashboard of a new user has none", async () => {
    const context = await newContext(theme);
    await signUp(context);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/dashboard`);
    await page.getByPlaceholder(TEXT.messagePlaceholder).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it("the Settings page, with the delete form open, has none", async () => {
    const context = await newContext(theme);
    await signUp(context);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/dashboard/settings`);
    await page.getByRole("button", { name: "Delete account…" }).click();
    await page.getByRole("button", { name: "Delete my account forever" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it("a discussion with messages of two members, its share panel with the QR code, and the new and join pages have none", async () => {
    const context = await newContext(theme);
    await signUp(context);
    const created = await context.request.post(`${app.server.url}${DISCUSSIONS_API.list}`, {
      data: { title: "Accessible trip", display_name: "Ada" },
    });
    expect(created.status()).toBe(201);
    const { discussion } = responseSchemas.discussion.parse(await created.json());
    const guest = await newContext(theme);
    await signUp(guest);
    expect(
      (
        await guest.request.post(`${app.server.url}${DISCUSSIONS_API.join(discussion.public_id)}`, { data: { display_name: "Grace" } })
      ).ok(),
    ).toBe(true);
    const now = new Date();
    const message = { id: crypto.randomUUID(), content: "Hello from Grace", date: formatStoredDate(now), time: formatStoredTime(now) };
    expect((await guest.request.post(`${app.server.url}${DISCUSSIONS_API.messages(discussion.id)}`, { data: message })).ok()).toBe(true);
    const page = await context.newPage();
    await page.goto(`${app.server.url}${DISCUSSION_ROUTES.one(discussion.id)}`);
    await page.getByText("Hello from Grace").waitFor();
    await page.waitForLoadState("networkidle");
    expect(await audit(page)).toEqual([]);
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await page
      .getByRole("dialog")
      .getByRole("img", { name: /QR code/ })
      .waitFor();
    expect(await audit(page)).toEqual([]);
    // The pages before it: a new discussion, and the join screen of its link.
    await page.goto(`${app.server.url}${DISCUSSION_ROUTES.new}`);
    await page.getByRole("heading", { name: "New discussion" }).waitFor();
    expect(await audit(page)).toEqual([]);
    await page.goto(`${app.server.url}${DISCUSSION_ROUTES.join("ZZZZZZZZZZ")}`);
    await page.getByRole("heading", { name: "Join a discussion" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await audit(page)).toEqual([]);
    await guest.close();
    await context.close();
  });

  it("Add a device (its QR code) and the new device's code page have none", async () => {
    const context = await newContext(theme);
    await signUp(context);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/pair/add`);
    await page.getByRole("img", { name: /QR code/ }).waitFor();
    expect(await audit(page)).toEqual([]);
    const visitor = await newContext(theme, 390);
    const phone = await visitor.newPage();
    await phone.goto(`${app.server.url}/pair/join`);
    await phone.getByLabel("Code shown on the other device").waitFor();
    expect(await audit(phone)).toEqual([]);
    await visitor.close();
    await context.close();
  });

  it("the composer with a cancelled upload, then a staged file, has none", async () => {
    const context = await newContext(theme);
    await signUp(context);
    const page = await context.newPage();
    // Upload bytes are held, so the cancelled row stays cancelled rather than finishing first.
    await page.route(/\/api\/uploads\/[a-f0-9]+$/, async (route) => {
      if (route.request().method() !== "PATCH") await route.continue();
    });
    await page.goto(`${app.server.url}/dashboard`);
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
    await chooser.setFiles([{ name: "cancel-me.txt", mimeType: "text/plain", buffer: Buffer.from("bye") }]);
    // Send only once the file is staged, as a person sees it: pressed before, under load, it sent an empty message box
    // (nothing) and no upload ever started.
    await page.getByText("Ready to send").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await page.getByText(/^Uploading selected file/).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Cancel cancel-me.txt" }).click();
    await page.getByText("Upload cancelled").waitFor();
    expect(await audit(page)).toEqual([]);
    // A new pick clears the cancelled row and shows the staged one.
    const [again] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
    await again.setFiles([{ name: "staged.txt", mimeType: "text/plain", buffer: Buffer.from("hi") }]);
    await page.getByText("Ready to send").waitFor();
    expect(await audit(page)).toEqual([]);
    await context.close();
  });
});

import { TEXT, VALIDATION } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import {
  collectErrors,
  expectFieldError,
  fieldError,
  hidden,
  newDevice,
  openSignInPage,
  PASSWORD,
  registerViaApi,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";

describe("sign-in, registration and routing", () => {
  const app = useStartedApp();

  /** An account made on another device, so this one starts signed out. */
  async function accountElsewhere(name: string, tag: string): Promise<string> {
    const setup = await newDevice(app.browser, app.server.url);
    const email = uniqueEmail(tag);
    await registerViaApi(setup, app.server.url, name, email);
    await setup.context.close();
    return email;
  }

  it("registers through the form and lands on /dashboard/home with 'At home'", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/register");
    await visible(page.getByRole("heading", { name: TEXT.registerHeading }));
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill(uniqueEmail("ada"));
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: TEXT.register }).click();

    await page.waitForURL("**/dashboard/home");
    await visible(page.getByRole("heading", { name: TEXT.atHome, exact: true }));
    const userPanel = page.getByRole("link", { name: /Ada Lovelace/ });
    expect(await userPanel.locator(".avatar").textContent()).toBe("A");
    expect(await page.getByText(TEXT.noMessages).isVisible()).toBe(true);
    await context.close();
  });

  it("shows each register validation message once a field is touched", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await openSignInPage(page, "/register");
    const name = page.getByLabel("Name");
    await name.focus();
    await name.press("Tab");
    await expectFieldError(page, "Name", VALIDATION.nameRequired);
    // Untouched fields stay quiet.
    expect(await fieldError(page, "Password")).toBeNull();

    await page.getByLabel("Email").press("Tab");
    await expectFieldError(page, "Email", VALIDATION.emailRequired);
    await page.getByLabel("Email").fill("not-an-email");
    await expectFieldError(page, "Email", VALIDATION.emailInvalid);

    await page.getByLabel("Password", { exact: true }).press("Tab");
    await expectFieldError(page, "Password", VALIDATION.passwordRequired);
    await page.getByLabel("Confirm password").press("Tab");
    await expectFieldError(page, "Confirm password", VALIDATION.confirmRequired);

    await page.getByLabel("Password", { exact: true }).fill("abcdefgh1");
    await page.getByLabel("Confirm password").fill("something else");
    await page.getByLabel("Confirm password").press("Tab");
    await expectFieldError(page, "Confirm password", VALIDATION.passwordsMatch);

    // Fixing a field clears its message.
    await page.getByLabel("Name").fill("Grace");
    await expectFieldError(page, "Name", null);
    await context.close();
  });

  it("shows every register message on a blank submit, and stays on the page", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/register");
    await page.getByRole("button", { name: TEXT.register }).click();
    await expectFieldError(page, "Name", VALIDATION.nameRequired);
    await expectFieldError(page, "Email", VALIDATION.emailRequired);
    await expectFieldError(page, "Password", VALIDATION.passwordRequired);
    await expectFieldError(page, "Confirm password", VALIDATION.confirmRequired);
    expect(new URL(page.url()).pathname).toBe("/register");
    await context.close();
  });

  it("shows the login validation messages", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/login");
    await visible(page.getByRole("heading", { name: TEXT.loginHeading }));
    await page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    await expectFieldError(page, "Email", VALIDATION.emailRequired);
    await expectFieldError(page, "Password", VALIDATION.passwordRequired);
    await page.getByLabel("Email").fill("someone@");
    await expectFieldError(page, "Email", VALIDATION.emailInvalid);
    await context.close();
  });

  it("shows the server's message in a red banner on a wrong password, hidden after 5 s", async () => {
    const email = await accountElsewhere("Wrong Password", "wrong");

    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: TEXT.signIn, exact: true }).click();

    const banner = await visible(page.getByRole("alert"));
    const shownAt = Date.now();
    expect(await banner.textContent()).toContain("Invalid email or password.");
    // Red: drawn with the danger tokens of the theme.
    const colours = await banner.evaluate((el) => {
      const probe = document.createElement("div");
      probe.style.background = "var(--danger-bg)";
      probe.style.color = "var(--danger)";
      document.body.append(probe);
      const expected = getComputedStyle(probe);
      const actual = getComputedStyle(el);
      const result = {
        bg: [actual.backgroundColor, expected.backgroundColor],
        fg: [actual.color, expected.color],
      };
      probe.remove();
      return result;
    });
    expect(colours.bg[0]).toBe(colours.bg[1]);
    expect(colours.fg[0]).toBe(colours.fg[1]);
    expect(new URL(page.url()).pathname).toBe("/login");

    await hidden(banner, 8_000);
    const shownFor = Date.now() - shownAt;
    expect(shownFor).toBeGreaterThan(4_000);
    expect(shownFor).toBeLessThan(7_000);
    await context.close();
  });

  it("sends a signed-out visitor to /login and back to the page asked for after signing in", async () => {
    const email = await accountElsewhere("Back Again", "back");

    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/dashboard/plan");
    await page.waitForURL("**/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    await page.waitForURL("**/dashboard/plan");
    await visible(page.getByRole("heading", { name: "Free plan" }));
    await context.close();
  });

  it("sends a signed-in visitor from /login and /register to the dashboard", async () => {
    const device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Signed In", uniqueEmail("in"));
    const { context, page } = device;
    await page.goto("/login");
    await page.waitForURL((url) => url.pathname === "/dashboard");
    await page.goto("/register");
    await page.waitForURL((url) => url.pathname === "/dashboard");
    await visible(page.getByText(TEXT.noMessages));
    await context.close();
  });

  it("links sign-in and register to each other, and toggles the connected-device panel", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/login");
    await visible(page.getByText(TEXT.or, { exact: true }));
    const toggle = page.getByRole("button", { name: TEXT.connectedDevice });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    const panel = page.locator(`[id="${await toggle.getAttribute("aria-controls")}"]`);
    await visible(panel);
    expect(await panel.getByRole("heading").count()).toBeGreaterThan(0);
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await hidden(panel);

    await page.getByRole("link", { name: TEXT.registerLink }).click();
    await page.waitForURL("**/register");
    await page.getByRole("link", { name: TEXT.haveMembership }).click();
    await page.waitForURL("**/login");
    await context.close();
  });

  it("paints /login from the server's HTML and keeps what was typed before the app's code arrived", async () => {
    const email = await accountElsewhere("Early Typist", "early");

    const { context, page } = await newDevice(app.browser, app.server.url);
    const errors = collectErrors(page);
    // Hold every script, as a slow network would: the page has only its HTML and styles.
    let releaseScripts = () => {};
    const scriptsReleased = new Promise<void>((resolve) => {
      releaseScripts = resolve;
    });
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await scriptsReleased;
      await route.continue();
    });

    await page.goto("/login", { waitUntil: "commit" });
    await visible(page.getByRole("heading", { name: TEXT.loginHeading }));
    const signIn = page.getByRole("button", { name: TEXT.signIn, exact: true });
    // Until the code arrives the browser would submit the form itself, with the password in the address.
    expect(await signIn.isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: TEXT.connectedDevice }).isDisabled()).toBe(true);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);

    releaseScripts();
    await page.locator('form button[type="submit"]:enabled').waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    expect(await page.getByLabel("Password").inputValue()).toBe(PASSWORD);
    await signIn.click();
    await page.waitForURL((url) => url.pathname === "/dashboard");
    await visible(page.getByText(TEXT.noMessages));
    // React found the markup it would have rendered: no hydration mismatch was reported.
    expect(errors).toEqual([]);
    await context.close();
  });

  it("keeps the sign-in form still on a phone while the page loads and the screen's height changes", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url, { width: 412, height: 823 });
    await page.addInitScript(() => {
      type Shift = { value: number; sources?: Array<{ node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }> };
      const shifts: Array<{ value: number; moved: string[] }> = [];
      (window as unknown as { shifts: typeof shifts }).shifts = shifts;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as Shift[]) {
          const moved = (entry.sources ?? []).map(
            (source) => `${source.node?.nodeName}: ${JSON.stringify(source.previousRect)} → ${JSON.stringify(source.currentRect)}`,
          );
          shifts.push({ value: entry.value, moved });
        }
      }).observe({ type: "layout-shift", buffered: true });
    });
    const stylesheets: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "stylesheet") stylesheets.push(request.url());
    });
    await openSignInPage(page, "/login");
    // The page's styles arrive inlined; loading them again as files would reorder rules as each arrives.
    expect(stylesheets).toEqual([]);
    const form = page.locator("form");
    const top = async () => (await form.boundingBox())?.y;
    const atFirst = await top();
    // A phone's address bar hiding or showing changes the height the page has.
    await page.setViewportSize({ width: 412, height: 1100 });
    expect(await top()).toBe(atFirst);
    await page.setViewportSize({ width: 412, height: 700 });
    expect(await top()).toBe(atFirst);
    // Cumulative layout shift as Lighthouse reports it, to its three decimals: 0. A busy machine once recorded a
    // 0.0003 shift (a fraction of a pixel) that no run since has shown; the defect this guards against was 0.18.
    const shifts = await page.evaluate(() => (window as unknown as { shifts: Array<{ value: number; moved: string[] }> }).shifts);
    const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
    expect(total, JSON.stringify(shifts)).toBeLessThan(0.0005);
    await context.close();
  });

  it("serves /register rendered, and the app takes it over in place", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    const html = await (await context.request.get("/register")).text();
    expect(html).toContain(TEXT.registerHeading);
    expect(html).toContain("<label");
    const errors = collectErrors(page);
    await openSignInPage(page, "/register");
    await page.getByRole("button", { name: TEXT.register }).click();
    await expectFieldError(page, "Name", VALIDATION.nameRequired);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the error screen for an unknown route, with a link home", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await page.goto("/no/such/page");
    await visible(page.getByRole("heading", { name: TEXT.errorHeading }));
    expect(await page.getByText(TEXT.notFound).isVisible()).toBe(true);
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await context.close();
  });

  it("does not load the sign-in or dashboard code on the landing page", async () => {
    // No service worker: once idle it precaches every chunk and then answers /login's scripts itself,
    // which would make what the page asks for depend on how soon it got there.
    const context = await app.browser.newContext({ baseURL: app.server.url, serviceWorkers: "block" });
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on("request", (req) => {
      if (req.resourceType() === "script") scripts.push(new URL(req.url()).pathname);
    });
    await page.goto("/", { waitUntil: "networkidle" });
    expect(scripts.length).toBeGreaterThan(0);
    // The router and the sign-in pages are the `app` chunk; the dashboard has chunks of its own.
    const appOnly = scripts.filter((s) => /\/assets\/app-|dashboard-route|day-routes/.test(s));
    expect(appOnly).toEqual([]);

    // The app's chunk comes after a yield to the browser (main.tsx), which a loaded machine can stretch past networkidle.
    const appChunk = page.waitForRequest((req) => /\/assets\/app-/.test(new URL(req.url()).pathname), { timeout: 30_000 });
    await page.goto("/login");
    await appChunk;
    await page.waitForLoadState("networkidle");
    expect(scripts.some((s) => /\/assets\/app-/.test(s))).toBe(true);
    expect(scripts.filter((s) => /dashboard-route|day-routes/.test(s))).toEqual([]);
    await context.close();
  });
});

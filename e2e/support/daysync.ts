/** Helpers for driving the Daysync app like a person would: devices, accounts, waiting for what shows. */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { API, KEYS_API, keysStateSchema, TEXT } from "@daysync/shared";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { serverBundle } from "../../apps/server/src/testing/server-bundle.ts";

export const PASSWORD = "correct horse battery";

let counter = 0;
export function uniqueEmail(tag = "user"): string {
  counter += 1;
  return `${tag}-${Date.now()}-${counter}@example.com`;
}

export interface Device {
  context: BrowserContext;
  page: Page;
}

/** A separate browser profile (its own cookies and storage), like another phone or computer. */
export async function newDevice(
  browser: Browser,
  baseURL: string,
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<Device> {
  const context = await browser.newContext({ baseURL, viewport });
  const page = await context.newPage();
  return { context, page };
}

/** Creates an account with this device's cookie jar, for tests that are not about the register screen. */
export async function registerViaApi(device: Device, baseURL: string, name: string, email: string): Promise<void> {
  const res = await device.context.request.post(`${baseURL}${API.register}`, {
    data: { name, email, password: PASSWORD, confirm_password: PASSWORD },
  });
  if (res.status() !== 201) throw new Error(`register failed: ${res.status()} ${await res.text()}`);
}

export async function signInViaApi(device: Device, baseURL: string, email: string): Promise<void> {
  const res = await device.context.request.post(`${baseURL}${API.login}`, { data: { email, password: PASSWORD } });
  if (res.status() !== 200) throw new Error(`login failed: ${res.status()} ${await res.text()}`);
}

type Viewport = { width: number; height: number };

/** Two devices of one new account: the first registers it, the second signs in to it (neither opens a page yet). */
export async function twoDevicesOfOneUser(
  browser: Browser,
  baseURL: string,
  account: { name: string; email: string },
  viewports: { first?: Viewport; second?: Viewport } = {},
): Promise<[Device, Device]> {
  const [first, second] = await Promise.all([newDevice(browser, baseURL, viewports.first), newDevice(browser, baseURL, viewports.second)]);
  await registerViaApi(first, baseURL, account.name, account.email);
  await signInViaApi(second, baseURL, account.email);
  return [first, second];
}

/** The account's keys as this device's session sees them (GET /api/keys). */
export async function keyStateOf(device: Device, baseURL: string) {
  return keysStateSchema.parse(await (await device.context.request.get(`${baseURL}${KEYS_API.keys}`)).json());
}

/**
 * A new account's first browser, on its dashboard once that made the account's key (a "phone" that can approve
 * other devices). The wait is a loop, not expect.poll, so that it may run in beforeAll too.
 */
export async function keyedBrowser(
  browser: Browser,
  baseURL: string,
  account: { name: string; email: string },
  viewport: Viewport = { width: 420, height: 860 },
): Promise<Device> {
  const device = await newDevice(browser, baseURL, viewport);
  await registerViaApi(device, baseURL, account.name, account.email);
  await device.page.goto(`${baseURL}/dashboard`);
  const deadline = Date.now() + 15_000;
  while ((await keyStateOf(device, baseURL)).wraps.length !== 1) {
    if (Date.now() > deadline) throw new Error("The first browser made no key");
    await device.page.waitForTimeout(100);
  }
  return device;
}

/**
 * Opens /login or /register, which arrive rendered by the server, and waits until the page's code has
 * taken the form over (its submit button is enabled), so that leaving a field shows its message.
 */
export async function openSignInPage(page: Page, path: "/login" | "/register"): Promise<void> {
  await page.goto(path);
  await page.locator('form button[type="submit"]:enabled').waitFor();
}

/** Errors the page reports: React logs a hydration mismatch here. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

export async function visible(locator: Locator, timeout = 10_000): Promise<Locator> {
  await locator.waitFor({ state: "visible", timeout });
  return locator;
}

export async function hidden(locator: Locator, timeout = 10_000): Promise<void> {
  await locator.waitFor({ state: "hidden", timeout });
}

/** The validation message tied to a field through aria-describedby (beside any hint), or null when it has none. */
export async function fieldError(page: Page, label: string): Promise<string | null> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute("aria-describedby"))?.split(" ") ?? [];
  for (const id of ids) {
    const described = page.locator(`[id="${id}"]`);
    if (await described.evaluate((el) => el.classList.contains("field-error"))) return described.textContent();
  }
  return null;
}

/** The hint tied to a field through aria-describedby (what it expects, said before anything is typed), or null. */
export async function fieldHint(page: Page, label: string): Promise<string | null> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute("aria-describedby"))?.split(" ") ?? [];
  for (const id of ids) {
    const described = page.locator(`[id="${id}"]`);
    if (await described.evaluate((el) => el.classList.contains("field-hint"))) return described.textContent();
  }
  return null;
}

/** Waits until a field shows exactly this validation message (null: none). */
export async function expectFieldError(page: Page, label: string, message: string | null): Promise<void> {
  const deadline = Date.now() + 5_000;
  let last: string | null = null;
  while (Date.now() < deadline) {
    last = await fieldError(page, label);
    if (last === message) return;
    await page.waitForTimeout(50);
  }
  throw new Error(`field "${label}" shows ${JSON.stringify(last)}, expected ${JSON.stringify(message)}`);
}

/** Messages of the open day. */
export function messageList(page: Page): Locator {
  return page.getByRole("list", { name: "Messages" });
}

/** A message in the list holding `text`, shown under its author's name (a discussion's member, as the others see them). */
export function messageBy(page: Page, author: string, text: string): Locator {
  return messageList(page)
    .getByRole("listitem")
    .filter({ hasText: text })
    .filter({ has: page.getByText(author, { exact: true }) });
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(text);
  await box.press("Enter");
}

/** Waits until the outbox holds nothing: every message sent is stored on the server (leaving the page earlier may leave one waiting). */
export async function nothingPending(page: Page, timeout = 10_000): Promise<void> {
  await page.waitForFunction(() => !document.querySelector("[data-pending]"), undefined, { timeout });
}

const repoRoot = path.resolve(import.meta.dirname, "../..");

/** Picks files the way a person does: the attach button beside the message box opens the file chooser (several at once). */
export async function chooseFiles(page: Page, files: string | { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
  if (!chooser.isMultiple()) throw new Error("the file chooser takes one file only");
  await chooser.setFiles(files);
  // Picking is checked (a large file read) before a row shows; pressing Send in between would send nothing.
  for (const name of typeof files === "string" ? [path.basename(files)] : files.map((f) => f.name)) {
    const row = page.getByRole("region", { name: "Files to send" }).getByRole("listitem").filter({ hasText: name });
    await visible(row.or(page.getByRole("alert").filter({ hasText: name })).first(), 30_000);
  }
}

/** Every text the upload rows show, however briefly: call the returned function to read them. */
export async function recordStatusTexts(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { uploadTexts: Set<string> }).uploadTexts = seen;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll(".upload-status-text")) seen.add(el.textContent ?? "");
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => [...(window as unknown as { uploadTexts: Set<string> }).uploadTexts]);
}

/** The operator command that grants a plan (there is no payment provider yet). */
export async function setPlanByOperator(dataDir: string, email: string, plan: "premium" | "free"): Promise<void> {
  await promisify(execFile)(process.execPath, [serverBundle("admin"), "plan", "set", email, plan], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
  });
}

/**
 * Logout from the sidebar, through the warning shown when this is the only device that can read and no recovery code
 * is set ("Log out anyway"), to the landing page.
 */
export async function logOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: TEXT.logout }).click();
  const anyway = page.getByRole("dialog").getByRole("button", { name: "Log out anyway" });
  const left = page.waitForURL((url) => url.pathname === "/").then(() => "left" as const);
  const warned = anyway.waitFor({ state: "visible" }).then(() => "warned" as const);
  const first = await Promise.race([left.catch(() => "left" as const), warned.catch(() => "left" as const)]);
  if (first === "warned") await anyway.click();
  await left;
}

/** The sidebar's Discussions section (new, join by ID, the list). */
export const discussionsNav = (page: Page): Locator => page.getByRole("navigation", { name: TEXT.discussions });

/** Creates a discussion from the sidebar as a person does; resolves with its share panel, open as it is after a creation. */
export async function createDiscussion(page: Page, title: string, name: string): Promise<Locator> {
  await discussionsNav(page).getByRole("button", { name: TEXT.newDiscussion }).click();
  await page.getByLabel("Title", { exact: true }).fill(title);
  await page.getByLabel("Your name in this discussion").fill(name);
  await page.getByRole("button", { name: "Create discussion" }).click();
  return visible(page.getByRole("dialog", { name: `Share “${title}”` }), 30_000);
}

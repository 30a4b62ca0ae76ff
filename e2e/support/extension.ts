/// <reference path="../../apps/extension/src/chrome.d.ts" />
/**
 * The built browser extension (apps/extension/dist) loaded in real Chromium, as a person loads it unpacked. Built
 * first when missing (`npm run build` builds it too). Headless Chromium cannot show the host-permission prompt that
 * the setup page's `chrome.permissions.request` opens, so the loaded copy's manifest also lists the test server's
 * host as granted at install: the request for it then resolves at once, as it does once a person has allowed it.
 * It also has `clipboardRead`, which the extension does not ask for, so the test can read what a Copy put there (Chromium
 * grants no clipboard permission to an extension's origin from outside).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page, type Worker } from "playwright-core";
import { z } from "zod";
import { CHROMIUM_ARGS } from "./browser.ts";
import { visible } from "./daysync.ts";
import { readQrFromScreen } from "./qr.ts";

const root = path.resolve(import.meta.dirname, "../..");
const dist = path.join(root, "apps/extension/dist");

export interface LoadedExtension {
  context: BrowserContext;
  id: string;
  /** The extension's background service worker, to read its storage or call what its menu calls. */
  worker: Worker;
  /** The setup page the extension opened itself when installed. */
  setupPage: Page;
  url(page: string): string;
  /**
   * Calls, in the service worker, what a click on "Send to Daysync" calls, with what Chrome passes it: headless
   * Chromium shows no context menu to click.
   */
  menuClick(info: { selectionText?: string; linkUrl?: string; srcUrl?: string; pageUrl: string }): Promise<void>;
  /** The session token the extension keeps (chrome.storage.local), read in its service worker. */
  token(): Promise<string>;
  /** What the extension keeps of a session: none of it once signed out. */
  keptSession(): Promise<string[]>;
  close(): Promise<void>;
}

function builtExtension(): void {
  if (existsSync(path.join(dist, "manifest.json"))) return;
  execFileSync("flock", ["/tmp/daysync-build.lock", "npm", "run", "build:extension"], { cwd: root, stdio: "inherit" });
}

export async function launchWithExtension(serverUrl: string): Promise<LoadedExtension> {
  builtExtension();
  const scratch = mkdtempSync(path.join(tmpdir(), "daysync-ext-"));
  const folder = path.join(scratch, "extension");
  cpSync(dist, folder, { recursive: true });
  const manifestFile = path.join(folder, "manifest.json");
  const manifest = z.looseObject({ permissions: z.array(z.string()) }).parse(JSON.parse(readFileSync(manifestFile, "utf8")));
  const { protocol, hostname } = new URL(serverUrl);
  writeFileSync(
    manifestFile,
    JSON.stringify({
      ...manifest,
      permissions: [...manifest.permissions, "clipboardRead"],
      host_permissions: [`${protocol}//${hostname}/*`],
    }),
  );
  const context = await chromium.launchPersistentContext(path.join(scratch, "profile"), {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 900, height: 900 },
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${folder}`, `--load-extension=${folder}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  const id = new URL(worker.url()).host;
  const setupUrl = `chrome-extension://${id}/setup.html`;
  const deadline = Date.now() + 15_000;
  let setupPage = context.pages().find((page) => page.url() === setupUrl);
  while (!setupPage) {
    if (Date.now() > deadline) throw new Error("The extension did not open its setup page when installed");
    await new Promise((resolve) => setTimeout(resolve, 100));
    setupPage = context.pages().find((page) => page.url() === setupUrl);
  }
  await setupPage.waitForLoadState();
  return {
    context,
    id,
    worker,
    setupPage,
    url: (page) => `chrome-extension://${id}/${page}`,
    async menuClick(info) {
      await worker.evaluate(async (clicked) => {
        const click: unknown = Reflect.get(globalThis, "daysyncMenuClick");
        if (typeof click !== "function") throw new Error("The extension's worker has no menu handler");
        await click({ menuItemId: "send-to-daysync", ...clicked });
      }, info);
    },
    async token() {
      const stored = await worker.evaluate(() => chrome.storage.local.get("connection"));
      return z.object({ connection: z.object({ token: z.string() }) }).parse(stored).connection.token;
    },
    keptSession: () => worker.evaluate(async () => Object.keys(await chrome.storage.local.get(["connection", "outbox"]))),
    async close() {
      await context.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** What the clipboard holds, read on an extension page (the test's copy of the extension may read it). */
export const clipboardOn = (page: Page): Promise<string> => page.evaluate(() => navigator.clipboard.readText());

/** Pairs the extension as a person does: its setup page's QR code read from the screen, approved on `approving`. */
export async function pairByQr(extension: LoadedExtension, approving: BrowserContext, serverUrl: string): Promise<void> {
  const setup = await extension.context.newPage();
  await setup.goto(extension.url("setup.html"));
  await setup.getByLabel("Your Daysync server's address").fill(serverUrl);
  await setup.getByRole("button", { name: "Connect" }).click();
  await visible(setup.getByRole("img", { name: /QR code that pairs this browser extension/ }));
  const approver = await approving.newPage();
  await approver.goto(await readQrFromScreen(setup));
  await (await visible(approver.getByRole("button", { name: "Approve" }), 15_000)).click();
  await visible(approver.getByRole("heading", { name: "Approved" }), 15_000);
  await visible(setup.getByRole("heading", { name: "This browser is paired" }), 30_000);
  await Promise.all([approver.close(), setup.close()]);
}

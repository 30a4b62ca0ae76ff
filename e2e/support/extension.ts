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
    async close() {
      await context.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

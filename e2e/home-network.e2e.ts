/**
 * A phone on the home network (issue 43), in real Chromium: the server serves HTTPS on 127.0.0.2 (playing the LAN
 * address) with a certificate of the authority it made; Chromium trusts that one certificate by its key
 * (`--ignore-certificate-errors-spki-list`), as a phone that installed the authority would. The PC opens the server
 * on this machine's plain HTTP; every code and link it shows names the HTTPS address, never localhost.
 */
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { API, APP_ROUTES, KEYS_API, keysStateSchema, SEALED_TEXT, TEXT, TRUST_PAGE } from "@daysync/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_TRUSTED_TEXT, TRUSTED_TEXT } from "../apps/server/src/modules/home-network/trust-page.ts";
import { freePort } from "../apps/server/src/testing/free-port.ts";
import { launchBrowser } from "./support/browser.ts";
import { messageList, sendMessage, uniqueEmail } from "./support/daysync.ts";
import { readQrFromScreen } from "./support/qr.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const ANDROID_PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

const PLAIN_HOST = "daysync.test";

let server: RunningServer;
let browser: Browser;
let secureUrl: string;

/** base64 SHA-256 of the served certificate's public key, the form Chromium's flag takes. */
function spkiHashOf(certFile: string): string {
  const spki = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("base64");
}

beforeAll(async () => {
  const httpsPort = await freePort();
  server = await startServer({ LAN_ADDRESSES: "127.0.0.2", HTTPS_PORT: String(httpsPort) });
  secureUrl = `https://127.0.0.2:${httpsPort}`;
  browser = await launchBrowser([
    `--ignore-certificate-errors-spki-list=${spkiHashOf(path.join(server.dataDir, "tls/server.crt"))}`,
    // A name that is not this computer's, so plain http:// on it is not a secure context (a phone's view of the LAN address).
    `--host-resolver-rules=MAP ${PLAIN_HOST} 127.0.0.1`,
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The account's keys as this page's session sees them, asked by the page itself (so over the page's own HTTPS). */
async function keyState(page: Page) {
  return keysStateSchema.parse(await page.evaluate(async (url) => (await fetch(url)).json(), KEYS_API.keys));
}

describe("a phone on the home network", () => {
  it("signs in by the PC's QR code over HTTPS, then sends and reads both ways; no code or link names localhost", async () => {
    // The PC, on this machine's plain HTTP (a secure context for its browser), registers and makes its key.
    const pc = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 860 } });
    const email = uniqueEmail("home");
    const registered = await pc.request.post(`${server.url}/api/auth/register`, {
      data: { name: "Hana Home", email, password: "correct horse", confirm_password: "correct horse" },
    });
    expect(registered.status()).toBe(201);
    const pcPage = await pc.newPage();
    await pcPage.goto("/dashboard");
    await expect.poll(async () => (await keyState(pcPage)).wraps.length, { timeout: 20_000 }).toBe(1);

    await pcPage.goto("/pair/add");
    await pcPage.getByRole("img", { name: /QR code/ }).waitFor();
    const link = await readQrFromScreen(pcPage);
    // The link names the server's authority too, for `daysync login LINK` (c=<sha256>).
    expect(link).toMatch(new RegExp(`^${secureUrl}/pair/join/[A-Za-z0-9_-]{22,}#k=[A-Za-z0-9_-]{43}&c=[0-9a-f]{64}$`));
    const instructions = await pcPage.getByRole("main").innerText();
    expect(instructions).toContain(`${new URL(secureUrl).host}/pair/join`);
    expect(instructions).not.toMatch(/localhost|127\.0\.0\.1/);

    // The phone opens the scanned link: HTTPS on the home network address, trusted.
    const phone = await browser.newContext({
      viewport: { width: 412, height: 860 },
      userAgent: ANDROID_PHONE,
      isMobile: true,
      hasTouch: true,
    });
    const phonePage = await phone.newPage();
    await phonePage.goto(link);
    expect(await phonePage.evaluate(() => window.isSecureContext)).toBe(true);
    await phonePage.getByRole("heading", { name: /^Waiting for approval on / }).waitFor();
    await pcPage.getByRole("heading", { name: "Sign in this device?" }).waitFor();
    await pcPage.getByRole("button", { name: "Approve" }).click();
    await pcPage.getByRole("heading", { name: "Approved" }).waitFor();
    await phonePage.waitForURL(`${secureUrl}/dashboard`);
    await phonePage.getByText(TEXT.loginSuccessTitle).waitFor();
    await expect.poll(async () => (await keyState(phonePage)).wraps.length, { timeout: 20_000 }).toBe(1);

    // Both ways, sealed on one device and opened on the other, live.
    await pcPage.goto("/dashboard");
    await sendMessage(phonePage, "sent from the phone over https");
    await messageList(pcPage).getByText("sent from the phone over https").waitFor({ timeout: 20_000 });
    await sendMessage(pcPage, "sent from the PC on localhost");
    await messageList(phonePage).getByText("sent from the PC on localhost").waitFor({ timeout: 20_000 });
    expect(await phonePage.getByText("This address is not secure").count()).toBe(0);
    expect(phonePage.url().startsWith(secureUrl)).toBe(true);
    await phone.close();
    await pc.close();
  });

  it("a phone on the plain http:// address is told it cannot encrypt there, with a link to set up HTTPS", async () => {
    const phone = await browser.newContext({ viewport: { width: 412, height: 860 }, userAgent: ANDROID_PHONE, isMobile: true });
    const page = await phone.newPage();
    const plainUrl = server.url.replace("127.0.0.1", PLAIN_HOST);
    await page.goto(`${plainUrl}${APP_ROUTES.login}`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    const email = uniqueEmail("plain");
    const status = await page.evaluate(
      async ({ path, email }) =>
        (
          await fetch(path, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: "Pia Plain", email, password: "correct horse", confirm_password: "correct horse" }),
          })
        ).status,
      { path: API.register, email },
    );
    expect(status).toBe(201);
    await page.goto(`${plainUrl}${APP_ROUTES.dashboard}`);
    await page.getByRole("heading", { name: SEALED_TEXT.insecure }).waitFor({ timeout: 15_000 });
    const setUp = page.getByRole("link", { name: "Set up HTTPS on this device" });
    expect(await setUp.getAttribute("href")).toBe(`${secureUrl}${TRUST_PAGE}`);
    expect(await page.getByRole("link", { name: secureUrl }).getAttribute("href")).toBe(secureUrl);
    await phone.close();
  });

  it("the trust page, opened over plain HTTP, says whether this device trusts the server's HTTPS", async () => {
    const trusting = await browser.newPage();
    await trusting.goto(`${server.url}${TRUST_PAGE}`);
    await trusting.getByRole("status").getByText(TRUSTED_TEXT).waitFor({ timeout: 15_000 });
    await trusting.getByRole("link", { name: `Open Daysync at ${secureUrl}` }).waitFor();
    await trusting.close();

    // A browser that trusts nothing of it is told so, with the steps on the same page.
    const untrusting = await launchBrowser();
    try {
      const page = await untrusting.newPage();
      await page.goto(`${server.url}${TRUST_PAGE}`);
      await page.getByRole("status").getByText(NOT_TRUSTED_TEXT).waitFor({ timeout: 15_000 });
      for (const system of ["Android", "iPhone and iPad", "macOS", "Windows", "Linux"]) {
        await page.getByRole("heading", { name: system, exact: true }).waitFor();
      }
    } finally {
      await untrusting.close();
    }
  });
});

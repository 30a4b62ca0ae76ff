/**
 * A browser on a plain-http address other than the computer Daysync runs on (a phone on the home network, say) has no
 * WebCrypto, so it can neither seal nor open (decision 020). It says so, in place of the locked notice, on each sealed
 * message and on what it typed, and sends nothing in clear: the server never gets that text.
 */
import { API, APP_ROUTES, joinLink, SEALED_TEXT, TEXT } from "@daysync/shared";
import { makePairingSecret, pairingFragment } from "@daysync/shared/crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { messageList, PASSWORD, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";

/** A name that is not this computer's, so Chromium treats http:// on it as not secure. */
const HOST = "daysync.test";

describe("a browser on an address that is not secure", () => {
  let server: RunningServer;
  let browser: Browser;
  let keyed: NodeDevice;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser([`--host-resolver-rules=MAP ${HOST} 127.0.0.1`]);
    keyed = await NodeDevice.register(server.url, "Ira Insecure", uniqueEmail("insecure"));
  });
  afterAll(async () => {
    await keyed?.dispose();
    await browser?.close();
    await server?.stop();
  });

  it("says it cannot encrypt there, on the page, on sealed messages and on what is typed, and sends nothing in clear", async () => {
    const sealed = await keyed.sendSealed("sealed on a keyed device");
    const origin = server.url.replace("127.0.0.1", HOST);
    const page = await browser.newPage({ baseURL: origin });
    await page.goto(APP_ROUTES.login);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    const signedIn = await page.evaluate(
      async ({ email, password }) =>
        (
          await fetch("/api/auth/login", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email, password }),
          })
        ).status,
      { path: API.login, email: keyed.email, password: PASSWORD },
    );
    expect(signedIn).toBe(200);

    await page.goto(APP_ROUTES.dashboard);
    await visible(page.getByRole("heading", { name: SEALED_TEXT.insecure }), 15_000);
    const list = messageList(page);
    await visible(list.getByRole("listitem").filter({ hasText: SEALED_TEXT.insecure }));
    expect(await page.getByText(SEALED_TEXT.approveToSend).count()).toBe(0);

    await sendMessage(page, "typed on the insecure page");
    const typed = list.getByRole("listitem").filter({ hasText: "typed on the insecure page" });
    await visible(typed.getByText(SEALED_TEXT.insecure), 15_000);
    await page.waitForTimeout(1_000);
    const stored = await keyed.open(sealed.id);
    expect(stored.opened).toMatchObject({ state: "opened", text: "sealed on a keyed device" });
    expect(await keyed.messageIds()).toEqual([sealed.id]);
    await page.close();
  });

  it("says so where a sign-in by QR code would start: the login page's code and a link from Add a device", async () => {
    const origin = server.url.replace("127.0.0.1", HOST);
    const page = await browser.newPage({ baseURL: origin });
    await page.goto(APP_ROUTES.login);
    await page.getByRole("button", { name: TEXT.connectedDevice }).click();
    const stopped = page.getByRole("complementary").getByRole("alert");
    await visible(stopped.getByText(SEALED_TEXT.insecure), 15_000);
    // Another code would fail the same way, so none is offered.
    expect(await stopped.getByRole("button", { name: "Show a new code" }).count()).toBe(0);

    const offer = await keyed.offerDevice();
    await page.goto(`${joinLink(origin, offer.code)}${pairingFragment(makePairingSecret())}`);
    await visible(page.getByRole("alert").getByText(SEALED_TEXT.insecure), 15_000);
    await page.close();
  });
});

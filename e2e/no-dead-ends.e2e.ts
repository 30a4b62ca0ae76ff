/**
 * Issue 43, "No dead ends in keys" and search by file name: a locked device that no other device can approve is
 * offered its way back where it is locked (the recovery code, else Start over with its cost said first), never sent
 * to Devices; logging out of the only device that can read warns first and offers to make a recovery code, which
 * opens Settings at that section; a search finds a sealed file by the name this device opened.
 */

import path from "node:path";
import { API, APP_ROUTES, SEALED_TEXT, TEXT } from "@daysync/shared";
import SQLite from "better-sqlite3";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, keyStateOf, newDevice, registerViaApi, signInViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const LOCKED = SEALED_TEXT.approveToSend;
const DAY_MS = 24 * 60 * 60 * 1000;
const ALONE = "No other signed-in device can read your messages, so none can approve this one.";
const CONSEQUENCES =
  "Start over: this device makes a new key. Messages sent before can no longer be read on any device, and are deleted as they expire. This cannot be undone.";
const RECOVERY_IS_THE_WAY = "Your account has a recovery code: it is the way back. Start over is not possible while it is set.";
const ASK_OFFER =
  "No longer have the device that can read your messages? Ask to start over: your other devices are told and can cancel it, and after 24 hours this device can start over.";
const ASKED = /^You asked to start over\. Unless one of your other devices cancels it, this device can start over from .+\.$/;
const WARNING_TITLE = "Log out of the only device that can read?";
const WARNING_BODY =
  "This is the only device that can read your messages. Once it is logged out, the messages sent before can no longer be read on any device. A recovery code lets a new device read them again.";

/** Every path the page was on, to show that Devices was never needed. */
function pathsOf(device: Device): string[] {
  const paths: string[] = [];
  device.page.on("framenavigated", (frame) => {
    if (frame === device.page.mainFrame()) paths.push(new URL(frame.url()).pathname);
  });
  // Client-side navigations do not fire framenavigated: poll the location as well.
  const timer = setInterval(() => {
    if (!device.page.isClosed()) paths.push(new URL(device.page.url()).pathname);
  }, 100);
  device.page.on("close", () => clearInterval(timer));
  return paths;
}

/** A first device, registered and holding the account's first key. */
async function keyedFirstDevice(browser: Browser, baseURL: string, email: string): Promise<Device> {
  const device = await newDevice(browser, baseURL);
  await registerViaApi(device, baseURL, "Nia Nodeadend", email);
  await device.page.goto(APP_ROUTES.dashboard);
  await expect.poll(async () => (await keyStateOf(device, baseURL)).wraps.length, { timeout: 15_000 }).toBe(1);
  return device;
}

/** Start over and Yes, start over, on the locked `device`: it can read, under the epoch after the one it saw. */
async function startOverHere(device: Device, baseURL: string) {
  const before = (await keyStateOf(device, baseURL)).epoch ?? 0;
  await device.page.getByRole("button", { name: "Start over", exact: true }).click();
  await device.page.getByRole("button", { name: "Yes, start over" }).click();
  await expect.poll(async () => device.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
  const state = await keyStateOf(device, baseURL);
  expect(state.epoch).toBe(before + 1);
  return state;
}

/** Settings' "Create a recovery code" is on screen, not below the fold. */
async function createButtonInView(device: Device) {
  const create = await visible(
    device.page.getByRole("region", { name: "Recovery code" }).getByRole("button", { name: "Create a recovery code" }),
    15_000,
  );
  await expect
    .poll(
      async () =>
        create.evaluate((el) => {
          const box = el.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }),
      { timeout: 5_000 },
    )
    .toBe(true);
  return create;
}

describe("no dead ends in keys (issue 43)", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the recovery-code notice's Make a recovery code opens Settings with the recovery section in view", async () => {
    const device = await keyedFirstDevice(browser, server.url, uniqueEmail("offer"));
    await device.page.setViewportSize({ width: 390, height: 700 });
    const offer = device.page.getByRole("region", { name: "Keep a recovery code" });
    await (await visible(offer.getByRole("link", { name: "Make a recovery code" }), 15_000)).click();
    await device.page.waitForURL((url) => url.pathname === APP_ROUTES.settings);
    await createButtonInView(device);
    await device.context.close();
  });

  it("logging out of the only device that can read warns first; Make a recovery code opens Settings at that section; the code then unlocks a locked only device where it is locked", async () => {
    const email = uniqueEmail("only-reader");
    const only = await keyedFirstDevice(browser, server.url, email);

    // Logout warns, and Cancel keeps the device signed in.
    await only.page.getByRole("button", { name: TEXT.logout }).click();
    const dialog = await visible(only.page.getByRole("dialog", { name: WARNING_TITLE }), 15_000);
    await visible(dialog.getByText(WARNING_BODY));
    await visible(dialog.getByRole("button", { name: "Log out anyway" }));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => only.page.getByRole("dialog", { name: WARNING_TITLE }).count()).toBe(0);
    expect(new URL(only.page.url()).pathname).toBe(APP_ROUTES.dashboard);

    // Make a recovery code: Settings opens with its recovery section in view, not the top of the page.
    await only.page.getByRole("button", { name: TEXT.logout }).click();
    await (await visible(only.page.getByRole("dialog", { name: WARNING_TITLE })))
      .getByRole("button", { name: "Make a recovery code" })
      .click();
    await only.page.waitForURL((url) => url.pathname === APP_ROUTES.settings);
    const section = only.page.getByRole("region", { name: "Recovery code" });
    const create = await createButtonInView(only);
    await create.click();
    const code = (await (await visible(section.getByRole("figure", { name: "Your recovery code" }).locator("code"))).textContent()) ?? "";
    await section.getByRole("button", { name: "I saved it" }).click();
    await section.getByLabel("Type your recovery code").fill(code);
    await section.getByRole("button", { name: "Save recovery code" }).click();
    await visible(section.getByText(/^You made your recovery code on /), 15_000);

    // With a code set, Logout asks nothing.
    await only.page.getByRole("button", { name: TEXT.logout }).click();
    await only.page.waitForURL((url) => url.pathname === "/");
    expect(await only.page.getByRole("dialog", { name: WARNING_TITLE }).count()).toBe(0);

    // A new device is locked with no other device to approve it: the code unlocks it right there.
    const fresh = await newDevice(browser, server.url);
    const paths = pathsOf(fresh);
    await signInViaApi(fresh, server.url, email);
    await fresh.page.goto(APP_ROUTES.dashboard);
    await visible(fresh.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(fresh.page.getByText(ALONE), 15_000);
    await visible(fresh.page.getByText(RECOVERY_IS_THE_WAY), 15_000);
    expect(await fresh.page.getByRole("button", { name: "Start over", exact: true }).count()).toBe(0);
    await fresh.page.getByRole("button", { name: "Unlock with your recovery code" }).click();
    const field = fresh.page.getByLabel("Recovery code", { exact: true });
    await field.fill(code);
    await field.press("Enter");
    await expect.poll(async () => fresh.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
    expect((await keyStateOf(fresh, server.url)).wraps.length).toBeGreaterThan(0);
    expect(paths.some((p) => p.startsWith(APP_ROUTES.devices))).toBe(false);
    await fresh.context.close();
    await only.context.close();
  });

  it("a locked only device with no recovery code says what Start over costs, and starts over where it is locked", async () => {
    const email = uniqueEmail("start-over");
    const first = await keyedFirstDevice(browser, server.url, email);
    // Gone without its warning (the API, as a lost phone would be signed out): no device holds the key any more.
    expect((await first.context.request.post(`${server.url}${API.logout}`)).status()).toBeLessThan(300);
    await first.context.close();

    const fresh = await newDevice(browser, server.url);
    const paths = pathsOf(fresh);
    await signInViaApi(fresh, server.url, email);
    await fresh.page.goto(APP_ROUTES.dashboard);
    await visible(fresh.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(fresh.page.getByText(ALONE), 15_000);
    await visible(fresh.page.getByText(CONSEQUENCES), 15_000);
    expect(await fresh.page.getByRole("button", { name: "Unlock with your recovery code" }).count()).toBe(0);
    const state = await startOverHere(fresh, server.url);
    expect(state.wraps.map((w) => w.epoch)).toEqual([state.epoch]);
    expect(paths.some((p) => p.startsWith(APP_ROUTES.devices))).toBe(false);
    await fresh.context.close();
  });

  it("a locked device whose only key holder is its own lost browser gets Start over once that browser was away 7 days, without visiting Devices", async () => {
    const email = uniqueEmail("lost-browser");
    const lost = await keyedFirstDevice(browser, server.url, email);
    const lostSession = (await keyStateOf(lost, server.url)).session_id;
    // The browser's storage and cookie are gone; its session stays signed in, holding the key.
    await lost.context.close();

    const fresh = await newDevice(browser, server.url);
    const paths = pathsOf(fresh);
    await signInViaApi(fresh, server.url, email);
    await fresh.page.goto(APP_ROUTES.dashboard);
    await visible(fresh.page.getByRole("heading", { name: LOCKED }), 15_000);
    // Seen today, the lost browser stands in the way of whoever knows the password.
    expect((await keyStateOf(fresh, server.url)).other_devices_with_current_key).toBe(1);
    expect(await fresh.page.getByRole("button", { name: "Start over", exact: true }).count()).toBe(0);

    // A week goes by for the lost browser (this server runs on the real clock): its last sight moves 8 days back.
    const db = new SQLite(path.join(server.dataDir, "daysync.sqlite"));
    db.prepare("update sessions set last_seen_at = ? where id = ?").run(Date.now() - 8 * DAY_MS, lostSession);
    db.close();
    await fresh.page.reload();
    await visible(fresh.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(fresh.page.getByText(ALONE), 15_000);
    await visible(fresh.page.getByText(CONSEQUENCES), 15_000);
    await startOverHere(fresh, server.url);
    expect(paths.some((p) => p.startsWith(APP_ROUTES.devices))).toBe(false);
    await fresh.context.close();
  });

  it("a locked device whose key holder is alive asks to start over in 24 hours: the holder is told and can cancel; a day later it starts over", async () => {
    const email = uniqueEmail("start-over-request");
    const holder = await keyedFirstDevice(browser, server.url, email);
    const fresh = await newDevice(browser, server.url);
    await signInViaApi(fresh, server.url, email);
    await fresh.page.goto(APP_ROUTES.dashboard);
    await visible(fresh.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(fresh.page.getByText(ASK_OFFER), 15_000);
    // Where the key is: the holding device by name, and when it was last seen.
    await visible(fresh.page.getByText(/^Your messages can be read on .+, last seen .+\.$/), 15_000);
    expect(await fresh.page.getByRole("button", { name: "Start over", exact: true }).count()).toBe(0);

    await fresh.page.getByRole("button", { name: "Start over in 24 hours" }).click();
    await visible(fresh.page.getByRole("status").filter({ hasText: ASKED }), 15_000);
    // The device that holds the key hears it live, with what it means and Cancel.
    const notice = await visible(holder.page.getByRole("region", { name: "Start over requested" }), 15_000);
    await visible(
      notice.getByText(
        /^A device signed in to your account asked to start over on .+ If it was not you, cancel it and change your password\.$/,
      ),
    );
    await notice.getByRole("button", { name: "Cancel start over" }).click();
    await expect.poll(() => holder.page.getByRole("region", { name: "Start over requested" }).count(), { timeout: 15_000 }).toBe(0);
    await visible(fresh.page.getByRole("button", { name: "Start over in 24 hours" }), 15_000);
    expect(await fresh.page.getByRole("status").filter({ hasText: ASKED }).count()).toBe(0);

    // Asked again, and a day goes by with no cancel (this server runs on the real clock: the request moves 25 hours back).
    await fresh.page.getByRole("button", { name: "Start over in 24 hours" }).click();
    await visible(fresh.page.getByRole("status").filter({ hasText: ASKED }), 15_000);
    const db = new SQLite(path.join(server.dataDir, "daysync.sqlite"));
    db.prepare("update users set key_start_over_at = key_start_over_at - ? where email = ?").run(25 * 60 * 60 * 1000, email);
    db.close();
    await fresh.page.reload();
    await visible(fresh.page.getByText(CONSEQUENCES), 15_000);
    await startOverHere(fresh, server.url);
    await fresh.context.close();
    await holder.context.close();
  });

  it("search finds a sealed file by the name this device opened, never sent to the server in clear", async () => {
    const email = uniqueEmail("file-search");
    const { phone, laptop } = await keyedAccount(browser, server.url, "Sol Search", email);
    try {
      const sent = await phone.sendSealedFile("quarterly plan 7.pdf", "file", new TextEncoder().encode("plan"));
      expect(sent.filename).not.toContain("quarterly");
      await phone.sendSealed("a text about something else");
      await laptop.page.goto(APP_ROUTES.dashboard);
      await phone.approveByCheckCode(laptop.page);
      await expect.poll(async () => laptop.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
      await laptop.page.getByLabel("Search messages").fill("QUARTERLY plan");
      const result = await visible(laptop.page.getByRole("link", { name: /quarterly plan 7\.pdf/ }), 15_000);
      await result.click();
      await laptop.page.waitForURL(/\/dashboard\/days\//);
    } finally {
      await phone.dispose();
      await laptop.context.close();
    }
  });
});

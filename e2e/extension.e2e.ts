/// <reference path="../apps/extension/src/chrome.d.ts" />
/**
 * The browser extension as a Daysync device (issue 46), built and loaded in real Chromium: it pairs by the QR code
 * on its setup page, read from the screen and approved on a signed-in browser, and is then one of the account's
 * devices, named "Chrome extension on Linux", holding the account's key.
 */
import { readFileSync } from "node:fs";
import { API, APP_ROUTES, DEVICES_API, formatStoredDate, KEYS_API, keysStateSchema, responseSchemas } from "@daysync/shared";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { audit } from "./support/axe.ts";
import { type Device, keyedBrowser, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { clipboardOn, type LoadedExtension, launchWithExtension, pairByQr } from "./support/extension.ts";
import { filesUnder, findMarkers, marker } from "./support/markers.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();
let extension: LoadedExtension;
/**
 * The account's signed-in browser that approves the extension. Each test makes the state it needs (the phone, the
 * extension paired or not) when an earlier test or its own failed try left it otherwise, so CI's retry of a failed
 * test can pass; while all goes well they find it made and add no steps.
 */
let phone: Device | undefined;

beforeAll(async () => {
  extension = await launchWithExtension(app.server.url);
});
afterAll(async () => {
  await extension?.close();
});

/** What the extension sent, by what it was (a retried test replaces its own), for the closing check that the server kept none of it readable. */
const sentByExtension = new Map<string, string>();
/** The image the extension sent, to download again from its popup. */
let sentImage = Buffer.alloc(0);

/** The phone, made at first need (or again with a new account), on its dashboard. */
async function keyedPhone(): Promise<Device> {
  phone ??= await keyedBrowser(app.browser, app.server.url, { name: "Ext Tester", email: uniqueEmail("extension-qr") });
  if (new URL(phone.page.url()).pathname !== APP_ROUTES.dashboard) await phone.page.goto(`${app.server.url}${APP_ROUTES.dashboard}`);
  return phone;
}

const isPaired = async () => (await extension.keptSession()).includes("connection");

/** The phone, with the extension paired with its account (by QR code, when it is not). */
async function pairedPhone(): Promise<Device> {
  const keyed = await keyedPhone();
  if (!(await isPaired())) await pairByQr(extension, keyed.context, app.server.url);
  return keyed;
}

/** The extension signed out, from its setup page as a person does, when a test or a failed try left it paired. */
async function signedOutExtension(): Promise<void> {
  if (!(await isPaired())) return;
  const setup = await extensionPage("setup.html");
  await setup.getByRole("button", { name: "Sign out this browser" }).click();
  await expect.poll(extension.keptSession, { timeout: 10_000 }).toEqual([]);
  await setup.close();
}

/** Closes the tabs of one of the extension's pages that a failed try may have left open. */
async function closeExtensionPages(name: ExtensionPage): Promise<void> {
  const url = extension.url(name);
  await Promise.all(extension.context.pages().flatMap((page) => (page.url() === url ? [page.close()] : [])));
}

type ExtensionPage = "setup.html" | "popup.html";

/** A new tab of one of the extension's pages, any other tab of it closed first. */
async function extensionPage(name: ExtensionPage): Promise<Page> {
  const url = extension.url(name);
  await closeExtensionPages(name);
  const page = await extension.context.newPage();
  await page.goto(url);
  return page;
}

/** The id of today's newest message, as the phone lists it. */
async function newestMessageId(): Promise<string> {
  const get = async (path: string) => (await (await keyedPhone()).context.request.get(`${app.server.url}${path}`)).json();
  const today = responseSchemas.days.parse(await get(API.days)).days.find((day) => day.date === formatStoredDate(new Date()));
  const { messages } = responseSchemas.dayMessages.parse(await get(API.dayMessages(today?.id ?? "")));
  return messages.at(-1)?.id ?? "";
}

describe("the browser extension", () => {
  it("opens its setup page when installed, and refuses an address that is not one, in words", async () => {
    // The page the extension opened itself; a retry after it was closed opens it again.
    const setup = extension.setupPage.isClosed() ? await extensionPage("setup.html") : extension.setupPage;
    await setup.getByLabel("Your Daysync server's address").fill("not a server");
    await setup.getByRole("button", { name: "Connect" }).click();
    await visible(setup.getByText("That is not a web address. Enter it like https://daysync.example.com."));
    await setup.close();
  });

  it("pairs by its QR code, approved on a signed-in browser, and is listed as Chrome extension on Linux", async () => {
    // Paired by this test, from a new account (a failed try may have paired it with the one it made).
    await signedOutExtension();
    await phone?.context.close();
    phone = undefined;
    const approving = (await keyedPhone()).context;
    const setup = await extensionPage("setup.html");
    await setup.getByLabel("Your Daysync server's address").fill(app.server.url);
    await setup.getByRole("button", { name: "Connect" }).click();
    await visible(setup.getByRole("img", { name: /QR code that pairs this browser extension/ }));
    expect(await setup.getByTestId("pairing-short-code").textContent()).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}/);
    expect(await audit(setup)).toEqual([]);

    const link = await readQrFromScreen(setup);
    expect(link).toMatch(new RegExp(`^${app.server.url}/pair/[A-Za-z0-9_-]{22,}#k=[A-Za-z0-9_-]{43}$`));
    const approver = await approving.newPage();
    await approver.goto(link);
    await approver.getByRole("heading", { name: "Sign in a device?" }).waitFor();
    const facts = await approver.locator(".pair-facts").innerText();
    expect(facts).toContain("Chrome extension");
    expect(facts).toContain("Linux");
    await approver.getByRole("button", { name: "Approve" }).click();
    await approver.getByRole("heading", { name: "Approved" }).waitFor();

    await visible(setup.getByRole("heading", { name: "This browser is paired" }), 30_000);
    expect(
      await setup
        .getByRole("alert")
        .filter({ hasText: /could not check the key/ })
        .count(),
    ).toBe(0);

    const devices = responseSchemas.devices.parse(
      await (await approving.request.get(`${app.server.url}${DEVICES_API.list}`)).json(),
    ).devices;
    expect(devices.map((device) => device.name)).toContain("Chrome extension on Linux");

    // The extension holds the account's key: the handover's wraps, sealed again for its own key.
    const token = await extension.token();
    const keys = await fetch(`${app.server.url}${KEYS_API.keys}`, { headers: { authorization: `Bearer ${token}` } });
    expect(keys.status).toBe(200);
    expect(keysStateSchema.parse(await keys.json()).wraps).toHaveLength(1);
    await setup.close();
  });

  it("sends a selection and a link from the context menu, sealed: the other device reads them", async () => {
    const phone = await pairedPhone();
    const selection = marker("extension-selection");
    const link = `https://example.com/${marker("extension-link")}`;
    await extension.menuClick({ selectionText: selection, pageUrl: "https://example.com/article" });
    await extension.menuClick({ linkUrl: link, pageUrl: "https://example.com/article" });
    await visible(messageList(phone.page).getByText(selection), 30_000);
    await visible(messageList(phone.page).getByText(link), 30_000);

    sentByExtension.set("selection", selection).set("link", link);
  });

  it("sends an image from the context menu as a sealed file the other device opens", async () => {
    const phone = await pairedPhone();
    // A real PNG whose bytes carry a marker after its end (decoders stop at IEND), as a data: address.
    const imageMarker = marker("extension-image");
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#2563eb" } })
      .png()
      .toBuffer();
    const bytes = Buffer.concat([png, Buffer.from(imageMarker)]);
    await extension.menuClick({ srcUrl: `data:image/png;base64,${bytes.toString("base64")}`, pageUrl: "https://example.com/gallery" });
    const list = messageList(phone.page);
    await visible(
      list
        .getByText("image.png")
        .or(list.getByRole("img", { name: /image\.png/ }))
        .first(),
      30_000,
    );
    sentByExtension.set("image", imageMarker);
    sentImage = bytes;
  });

  it("counts a text from another device on its icon, lists it in the popup, and copies it", async () => {
    const phone = await pairedPhone();
    // A count a failed try left is cleared as a person clears it, by showing the popup; then no popup is open (it
    // would clear the count at once).
    const badge = () => extension.worker.evaluate(() => chrome.action.getBadgeText({}));
    if ((await badge()) !== "") {
      await extensionPage("popup.html");
      await expect.poll(badge, { timeout: 15_000 }).toBe("");
    }
    await closeExtensionPages("popup.html");
    const text = `from the phone ${marker("popup")}`;
    await sendMessage(phone.page, text);
    await expect.poll(badge, { timeout: 15_000 }).toBe("1");

    const popup = await extensionPage("popup.html");
    const list = popup.getByRole("list", { name: "Today's messages" });
    const item = list.getByRole("listitem").filter({ hasText: text });
    await visible(item, 15_000);
    // What the extension sent earlier is there too, from this browser.
    await visible(list.getByRole("listitem").filter({ hasText: "blind-extension-selection" }).first());
    await expect.poll(badge).toBe("");
    expect(await audit(popup)).toEqual([]);

    await item.getByRole("button", { name: "Copy" }).click();
    await visible(popup.getByRole("status").filter({ hasText: "Copied" }));
    expect(await popup.evaluate(() => navigator.clipboard.readText())).toBe(text);

    // The image it sent is there with Download, which opens it on this browser.
    const image = list.getByRole("listitem").filter({ hasText: "image.png" }).last();
    const [download] = await Promise.all([popup.waitForEvent("download"), image.getByRole("button", { name: "Download" }).click()]);
    expect(download.suggestedFilename()).toBe("image.png");
    expect(readFileSync(await download.path())).toEqual(sentImage);

    // The message box sends through the same queue: the phone reads it.
    const reply = `from the popup ${marker("popup-box")}`;
    await popup.getByLabel("Message", { exact: true }).fill(reply);
    await popup.getByRole("button", { name: "Send" }).click();
    await visible(messageList(phone.page).getByText(reply), 15_000);
    sentByExtension.set("popup", reply);
    await visible(list.getByRole("listitem").filter({ hasText: reply }), 15_000);
    await popup.close();
  });

  it("copies a text from another device as it comes when the option is on, and from its notification's Copy", async () => {
    const phone = await pairedPhone();
    // The option as installed (a failed try may have left it on).
    await extension.worker.evaluate(() => chrome.storage.local.remove("auto-copy"));
    const setup = await extensionPage("setup.html");
    const option = setup.getByLabel("Copy texts from my other devices automatically");
    expect(await option.isChecked()).toBe(false);
    expect(await audit(setup)).toEqual([]);
    await option.check();

    const first = `copied as it came ${marker("auto-copy")}`;
    await sendMessage(phone.page, first);
    await expect.poll(() => clipboardOn(setup), { timeout: 15_000 }).toBe(first);

    await option.uncheck();
    await setup.evaluate(() => navigator.clipboard.writeText("something else"));
    const second = `copied from the notification ${marker("notification")}`;
    const before = await newestMessageId();
    await sendMessage(phone.page, second);
    await expect.poll(newestMessageId, { timeout: 15_000 }).not.toBe(before);
    const id = await newestMessageId();
    // Not copied by itself with the option off.
    await setup.waitForTimeout(1000);
    expect(await clipboardOn(setup)).toBe("something else");
    // Headless Chromium shows no notification to click: its Copy button's handler is called as the click calls it.
    await extension.worker.evaluate(async (notificationId) => {
      const copy: unknown = Reflect.get(globalThis, "daysyncNotificationCopy");
      if (typeof copy !== "function") throw new Error("The extension's worker has no notification handler");
      await copy(notificationId);
    }, `message-${id}`);
    await expect.poll(() => clipboardOn(setup), { timeout: 10_000 }).toBe(second);
    await setup.close();
  });

  it("keeps a text sent offline and sends it when the connection is back", async () => {
    const phone = await pairedPhone();
    const text = marker("offline");
    const waiting = () => extension.worker.evaluate(async () => JSON.stringify((await chrome.storage.local.get("outbox")).outbox ?? []));
    await extension.context.setOffline(true);
    try {
      await extension.menuClick({ selectionText: text, pageUrl: "https://example.com/offline" });
      expect(await waiting()).toContain(text);
      // The popup offline shows what this browser had (kept sealed), and says so.
      const popup = await extensionPage("popup.html");
      await visible(popup.getByRole("status").filter({ hasText: "You’re offline — showing what this browser had" }), 15_000);
      await visible(
        popup
          .getByRole("list", { name: "Today's messages" })
          .getByText(/^from the phone blind-popup/)
          .first(),
      );
      await popup.close();
    } finally {
      // Back online even when a step failed: a retry, and the tests after, need the network.
      await extension.context.setOffline(false);
    }
    await visible(messageList(phone.page).getByText(text), 30_000);
    await expect.poll(waiting).toBe("[]");
    sentByExtension.set("offline", text);
  });

  it("keeps nothing the extension sent readable on the server", () => {
    expect(sentByExtension.size).toBe(5);
    const sent = [...sentByExtension.values()];
    const found = filesUnder(app.server.dataDir).flatMap(({ name, bytes }) => findMarkers(sent, bytes, name));
    expect(found).toEqual([]);
  });

  it("ends its session at once when signed out from Devices on another device", async () => {
    const phone = await pairedPhone();
    const token = await extension.token();
    await phone.page.goto(`${app.server.url}${APP_ROUTES.devices}`);
    await phone.page.getByRole("button", { name: "Sign out Chrome extension on Linux" }).click();
    await phone.page.getByRole("button", { name: "Sign it out" }).click();

    await expect.poll(extension.keptSession, { timeout: 10_000 }).toEqual([]);
    const me = await fetch(`${app.server.url}${API.me}`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);

    const popup = await extensionPage("popup.html");
    await visible(popup.getByText("This browser is not paired with your Daysync account yet."));
    await visible(popup.getByRole("button", { name: "Set up Daysync" }));
    await popup.close();
  });

  it("pairs again after that, by the code typed on the signed-in browser, holding the key at once", async () => {
    await signedOutExtension();
    const phone = await keyedPhone();
    const setup = await extensionPage("setup.html");
    await setup.getByLabel("Your Daysync server's address").fill(app.server.url);
    await setup.getByRole("button", { name: "Connect" }).click();
    const code = (await (await visible(setup.getByTestId("pairing-short-code"))).textContent()) ?? "";

    await phone.page.goto(`${app.server.url}/pair`);
    await phone.page.getByLabel("Code shown on the other device").fill(code.toLowerCase());
    await phone.page.getByRole("button", { name: "Continue" }).click();
    await (await visible(phone.page.getByRole("button", { name: "Approve" }), 15_000)).click();
    await visible(phone.page.getByRole("heading", { name: "Approved" }), 30_000);
    await visible(setup.getByRole("heading", { name: "This browser is paired" }), 30_000);

    await phone.page.goto(`${app.server.url}/dashboard`);
    const text = `after pairing by code ${marker("typed")}`;
    await extension.menuClick({ selectionText: text, pageUrl: "https://example.com/typed" });
    await visible(messageList(phone.page).getByText(text), 30_000);

    // Signed out from its own setup page: it leaves Devices and forgets its session.
    await setup.getByRole("button", { name: "Sign out this browser" }).click();
    await visible(setup.getByLabel("Your Daysync server's address"));
    await expect.poll(extension.keptSession, { timeout: 10_000 }).toEqual([]);
    const devices = responseSchemas.devices.parse(await (await phone.context.request.get(`${app.server.url}${DEVICES_API.list}`)).json());
    expect(devices.devices.map((device) => device.name)).not.toContain("Chrome extension on Linux");
    await setup.close();
  });
});

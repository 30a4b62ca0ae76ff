import { APP_ROUTES, APPROVAL_TEXT, SEALED_TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typeCodeOn } from "./support/approval.ts";
import { launchBrowser } from "./support/browser.ts";
import { type Device, keyStateOf, logOut, newDevice, signInViaApi, twoDevicesOfOneUser, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const LOCKED = SEALED_TEXT.approveToSend;
const START_OVER =
  "Start over? What was sent before can no longer be read on any device and is deleted as it expires. This cannot be undone.";

const codeOn = async (device: Device) => (await visible(device.page.locator(".key-approval-code"), 15_000)).textContent();

describe("approval by a typed code in the browser (docs/protocol/encryption.md, decision 020 section 5)", () => {
  let server: RunningServer;
  let browser: Browser;
  let laptop: Device;
  let phone: Device;
  let email: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    email = uniqueEmail("approve");
    [laptop, phone] = await twoDevicesOfOneUser(browser, server.url, { name: "Ada Approve", email });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("a device signed in by password is locked until the code it shows is typed on another device", async () => {
    await laptop.page.goto(APP_ROUTES.dashboard);
    await expect.poll(async () => (await keyStateOf(laptop, server.url)).wraps.length, { timeout: 15_000 }).toBe(1);

    await phone.page.goto(APP_ROUTES.dashboard);
    await visible(phone.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(phone.page.getByText(APPROVAL_TEXT.typeThisCode));
    const phoneCode = await codeOn(phone);
    expect(phoneCode).toMatch(/^\d{3} \d{3}$/);
    // The keyed device shows no code: only the field for it.
    await visible(laptop.page.getByLabel(APPROVAL_TEXT.codeField), 15_000);
    expect(await laptop.page.locator(".key-approval-code").count()).toBe(0);

    await typeCodeOn(laptop, phoneCode ?? "");
    await expect.poll(async () => phone.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
    const state = await keyStateOf(phone, server.url);
    expect(state.wraps).toMatchObject([{ epoch: 1, mode: "auth", sender_key_id: (await keyStateOf(laptop, server.url)).key_id }]);
    await phone.page.goto(APP_ROUTES.devices);
    const rows = phone.page.getByRole("list").filter({ hasText: "This device" }).getByRole("listitem");
    await visible(rows.filter({ hasText: "This device" }).getByText("Can read your messages"));
  });

  it("a wrong code three times ends the request, on both devices", async () => {
    const tablet = await newDevice(browser, server.url);
    await signInViaApi(tablet, server.url, email);
    await tablet.page.goto(APP_ROUTES.dashboard);
    await visible(tablet.page.getByRole("heading", { name: LOCKED }), 15_000);
    const code = (await codeOn(tablet)) ?? "";
    const wrong = code === "000 000" ? "111 111" : "000 000";
    await laptop.page.goto(APP_ROUTES.dashboard);
    for (const left of [2, 1]) {
      await typeCodeOn(laptop, wrong);
      await visible(laptop.page.getByRole("alert").filter({ hasText: APPROVAL_TEXT.wrongCode(left) }), 15_000);
      await visible(tablet.page.getByRole("status").filter({ hasText: APPROVAL_TEXT.wrongCodeTyped(left) }), 15_000);
      // The code shown stays the same.
      expect(await codeOn(tablet)).toBe(code);
    }
    await typeCodeOn(laptop, wrong);
    await visible(laptop.page.getByRole("alert").filter({ hasText: APPROVAL_TEXT.endedWrongCodes }), 15_000);
    await visible(tablet.page.getByRole("alert").filter({ hasText: APPROVAL_TEXT.endedWrongCodes }), 15_000);
    expect((await keyStateOf(tablet, server.url)).wraps).toEqual([]);
    // The right code is too late: the field is gone, and the tablet asks again only when told to.
    expect(await laptop.page.getByLabel(APPROVAL_TEXT.codeField).count()).toBe(0);
    await tablet.page.getByRole("button", { name: "Ask again" }).click();
    await visible(laptop.page.getByLabel(APPROVAL_TEXT.codeField), 15_000);
    await (await visible(laptop.page.getByRole("button", { name: /^Deny / }), 15_000)).click();
    await tablet.page.context().close();
  });

  it("Deny on the approving device ends the request on the locked one; Start over once no other device holds the key", async () => {
    const tablet = await newDevice(browser, server.url);
    await signInViaApi(tablet, server.url, email);
    await tablet.page.goto(APP_ROUTES.dashboard);
    await visible(tablet.page.getByRole("heading", { name: LOCKED }), 15_000);
    await laptop.page.goto(APP_ROUTES.dashboard);
    await (await visible(laptop.page.getByRole("button", { name: /^Deny / }), 15_000)).click();
    await visible(tablet.page.getByRole("alert").filter({ hasText: "The request was ended on one of your devices." }), 15_000);
    expect((await keyStateOf(tablet, server.url)).wraps).toEqual([]);

    // Start over is offered only once no other signed-in device holds the key: sign the laptop and the phone out.
    expect(await tablet.page.getByRole("button", { name: "Start over", exact: true }).count()).toBe(0);
    for (const device of [laptop, phone]) {
      await device.page.goto(APP_ROUTES.dashboard);
      await logOut(device.page);
    }
    await tablet.page.reload();
    // Each sign-out of a device holding the key made the remaining one rotate: Start over makes the epoch after those.
    const before = (await keyStateOf(tablet, server.url)).epoch ?? 0;
    await (await visible(tablet.page.getByRole("button", { name: "Start over", exact: true }), 15_000)).click();
    await visible(tablet.page.getByText(START_OVER));
    await tablet.page.getByRole("button", { name: "Yes, start over" }).click();
    await expect.poll(async () => tablet.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
    const state = await keyStateOf(tablet, server.url);
    expect(state.epoch).toBe(before + 1);
    expect(state.wraps.map((w) => w.epoch)).toEqual([before + 1]);
  });
});

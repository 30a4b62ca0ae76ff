import { APP_ROUTES, KEYS_API, keysStateSchema, RECOVERY_TEXT, recoveryStateSchema, TEXT } from "@daysync/shared";
import { makeRecoveryCode } from "@daysync/shared/crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, hidden, newDevice, PASSWORD, registerViaApi, signInViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const LOCKED = "Approve this device from one of your other devices to read your messages";
const MISMATCH_TYPED_BACK = "That does not match your new recovery code. Check what you saved and type it again.";

async function keyState(device: Device, baseURL: string) {
  return keysStateSchema.parse(await (await device.context.request.get(`${baseURL}${KEYS_API.keys}`)).json());
}

async function recoveryState(device: Device, baseURL: string) {
  return recoveryStateSchema.parse(await (await device.context.request.get(`${baseURL}${KEYS_API.recovery}`)).json()).recovery;
}

/** The code with one character changed to another of the alphabet: its check bits catch it. */
function withTypo(code: string): string {
  const at = 7;
  return `${code.slice(0, at)}${code[at] === "7" ? "8" : "7"}${code.slice(at + 1)}`;
}

/** This device's row on its Devices page says it can read. */
async function canReadHere(device: Device) {
  await device.page.goto(APP_ROUTES.devices);
  const rows = device.page.getByRole("list").filter({ hasText: "This device" }).getByRole("listitem");
  await visible(rows.filter({ hasText: "This device" }).getByText("Can read your messages"), 15_000);
}

/** A fresh browser signed in with the password: it is locked, and uses the recovery code from the notice. */
async function unlockWithCode(device: Device, code: string) {
  await device.page.goto(APP_ROUTES.dashboard);
  await visible(device.page.getByRole("heading", { name: LOCKED }), 15_000);
  await (await visible(device.page.getByRole("button", { name: "Unlock with your recovery code" }), 15_000)).click();
  const field = device.page.getByLabel("Recovery code", { exact: true });
  await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
  await field.fill(code);
  await field.press("Enter");
  await expect.poll(async () => device.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
}

describe("the recovery code in the browser (decision 020, section 6)", () => {
  let server: RunningServer;
  let browser: Browser;
  let a: Device;
  let b: Device;
  let c: Device;
  let email: string;
  let code: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    email = uniqueEmail("recovery");
    a = await newDevice(browser, server.url);
    await registerViaApi(a, server.url, "Rae Recovery", email);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("offers a recovery code once a device can read: Not now puts it away there, Make a recovery code opens Settings", async () => {
    await a.page.goto(APP_ROUTES.dashboard);
    const offer = a.page.getByRole("region", { name: "Keep a recovery code" });
    await visible(offer.getByText(/a recovery code lets a new device read them again/), 15_000);
    await offer.getByRole("button", { name: "Not now" }).click();
    await hidden(offer);
    await a.page.reload();
    await visible(a.page.getByLabel("Message", { exact: true }), 15_000);
    expect(await offer.count()).toBe(0);

    const other = await newDevice(browser, server.url);
    await registerViaApi(other, server.url, "Oli Offer", uniqueEmail("offer"));
    await other.page.goto(APP_ROUTES.dashboard);
    const otherOffer = other.page.getByRole("region", { name: "Keep a recovery code" });
    await (await visible(otherOffer.getByRole("link", { name: "Make a recovery code" }), 15_000)).click();
    await other.page.waitForURL((url) => url.pathname === APP_ROUTES.settings);
    await visible(other.page.getByRole("region", { name: "Recovery code" }).getByRole("button", { name: "Create a recovery code" }));
    expect(await otherOffer.count()).toBe(0);
    await other.context.close();
  });

  it("Settings shows a new code once, with Print and Copy, and saves it only once it is typed back", async () => {
    await a.page.goto(APP_ROUTES.dashboard);
    await expect.poll(async () => (await keyState(a, server.url)).wraps.length, { timeout: 15_000 }).toBe(1);
    await a.page.goto(APP_ROUTES.settings);
    const section = a.page.getByRole("region", { name: "Recovery code" });
    await (await visible(section.getByRole("button", { name: "Create a recovery code" }), 15_000)).click();

    const shown = await visible(section.getByRole("figure", { name: "Your recovery code" }).locator("code"));
    code = (await shown.textContent()) ?? "";
    expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){6}$/);
    expect(await shown.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/monospace/);
    await visible(section.getByRole("button", { name: "Print" }));
    await visible(section.getByRole("button", { name: "Copy" }));
    await section.getByRole("button", { name: "I saved it" }).click();

    // Typed back wrong: nothing is saved, and the field says why.
    const typeBack = section.getByLabel("Type your recovery code");
    await typeBack.fill(withTypo(code));
    await section.getByRole("button", { name: "Save recovery code" }).click();
    await visible(section.getByText(MISMATCH_TYPED_BACK));
    expect(await recoveryState(a, server.url)).toBeNull();

    // Typed back as a person might: lower case, spaces for hyphens.
    await typeBack.fill(code.toLowerCase().replace(/-/g, " "));
    await typeBack.press("Enter");
    await visible(section.getByText(/^You made your recovery code on /), 15_000);
    await visible(section.getByRole("button", { name: "Replace recovery code" }));
    await visible(section.getByRole("button", { name: "Remove recovery code" }));
    expect(await recoveryState(a, server.url)).toMatchObject({ anchor_epoch: 1 });
    expect(await section.locator("code").count()).toBe(0);
  });

  it("a fresh device signed in with the password is locked until the recovery code unlocks it; typos and other codes are refused", async () => {
    b = await newDevice(browser, server.url);
    await b.page.goto("/login");
    await b.page.getByLabel("Email").fill(email);
    await b.page.getByLabel("Password").fill(PASSWORD);
    await b.page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
    await b.page.waitForURL((url) => url.pathname.startsWith(APP_ROUTES.dashboard));
    await visible(b.page.getByRole("heading", { name: LOCKED }), 15_000);

    await (await visible(b.page.getByRole("button", { name: "Unlock with your recovery code" }), 15_000)).click();
    const field = b.page.getByLabel("Recovery code", { exact: true });
    await field.fill(withTypo(code));
    await b.page.getByRole("button", { name: "Unlock" }).click();
    await visible(b.page.getByText(RECOVERY_TEXT.typo));
    await field.fill(await makeRecoveryCode());
    await b.page.getByRole("button", { name: "Unlock" }).click();
    await visible(b.page.getByText(RECOVERY_TEXT.mismatch), 15_000);
    expect((await keyState(b, server.url)).wraps).toEqual([]);

    await field.fill(code);
    await b.page.getByRole("button", { name: "Unlock" }).click();
    await expect.poll(async () => b.page.getByRole("heading", { name: LOCKED }).count(), { timeout: 15_000 }).toBe(0);
    const state = await keyState(b, server.url);
    expect(state.wraps).toMatchObject([{ epoch: 1, mode: "auth", sender_key_id: state.key_id }]);
    await canReadHere(b);
  });

  it("after A is signed out from B (a rotation), a third fresh device still unlocks with the same code into the new epoch", async () => {
    await b.page.goto(APP_ROUTES.devices);
    const others = b.page.getByRole("list").filter({ hasText: "This device" }).getByRole("listitem").filter({ hasNotText: "This device" });
    await (await visible(others.getByRole("button", { name: /^Sign out / }), 15_000)).click();
    await others.getByRole("button", { name: "Sign it out" }).click();
    // B heard the removal and made epoch 2, wrapped for itself and for the recovery key.
    await expect.poll(async () => (await keyState(b, server.url)).epoch, { timeout: 15_000 }).toBe(2);
    await expect.poll(async () => (await recoveryState(b, server.url))?.wraps.map((w) => w.epoch), { timeout: 15_000 }).toEqual([1, 2]);

    c = await newDevice(browser, server.url);
    await signInViaApi(c, server.url, email);
    await unlockWithCode(c, code);
    const state = await keyState(c, server.url);
    expect(state.epoch).toBe(2);
    expect(state.wraps.map((w) => w.epoch)).toEqual([1, 2]);
    await canReadHere(c);
  });

  it("Remove recovery code asks first; afterwards Settings offers a new one and a locked device no longer offers the code", async () => {
    await c.page.goto(APP_ROUTES.settings);
    const section = c.page.getByRole("region", { name: "Recovery code" });
    await (await visible(section.getByRole("button", { name: "Remove recovery code" }), 15_000)).click();
    const dialog = await visible(c.page.getByRole("dialog", { name: "Remove recovery code" }));
    await visible(dialog.getByText(/^Remove your recovery code\? /));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await recoveryState(c, server.url)).not.toBeNull();

    await section.getByRole("button", { name: "Remove recovery code" }).click();
    await c.page.getByRole("dialog", { name: "Remove recovery code" }).getByRole("button", { name: "Yes, remove it" }).click();
    await visible(section.getByRole("button", { name: "Create a recovery code" }), 15_000);
    expect(await recoveryState(c, server.url)).toBeNull();

    const d = await newDevice(browser, server.url);
    await signInViaApi(d, server.url, email);
    // A new device's sync reads the key state twice (before and after sending its key), the notice once more: after
    // all three, no recovery code is offered.
    let reads = 0;
    d.page.on("response", (response) => {
      if (new URL(response.url()).pathname === KEYS_API.keys) reads += 1;
    });
    await d.page.goto(APP_ROUTES.dashboard);
    await visible(d.page.getByRole("heading", { name: LOCKED }), 15_000);
    await visible(d.page.getByText("Type this code on one of your other devices"));
    await expect.poll(() => reads, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(await d.page.getByRole("button", { name: "Unlock with your recovery code" }).count()).toBe(0);
  });
});

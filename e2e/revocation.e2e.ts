/**
 * Revocation driven by the person's device (docs/protocol/encryption.md, "Rotation and revocation"): one browser signs
 * a device out from Devices and makes the next epoch itself at once; the other browser and the CLI move to it though
 * the server never says a rotation is due (every `rotation_due` the browsers read is rewritten to false, and the CLI
 * only syncs after the new epoch exists). The removed device's key is not wrapped for.
 */
import {
  API,
  APP_ROUTES,
  DEVICE_LIST_API,
  DEVICES_API,
  deviceListSchema,
  formatStoredDate,
  formatStoredTime,
  KEYS_API,
  keysStateSchema,
  recoveryStateSchema,
  responseSchemas,
  SEALED_TEXT,
} from "@daysync/shared";
import { securityCode, verifyDeviceList } from "@daysync/shared/crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Terminal } from "../apps/cli/test/cli-process.ts";
import { launchBrowser } from "./support/browser.ts";
import {
  type Device,
  keyStateOf,
  messageList,
  newDevice,
  PASSWORD,
  registerViaApi,
  signInViaApi,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";
import { asIfNotKeyed } from "./support/server-data.ts";

/** The date and time fields of a send made now, as the app writes them. */
const todayFields = () => ({ date: formatStoredDate(new Date()), time: formatStoredTime(new Date()) });

const LOCKED = "Approve this device from one of your other devices to read your messages";

/** The browser never hears from GET /api/keys that a rotation is due: only a device's own decision can rotate. */
async function withoutRotationDue(device: Device, baseURL: string) {
  await device.page.route(`${baseURL}${KEYS_API.keys}`, async (route) => {
    const answer = await route.fetch();
    const body = (await answer.json()) as Record<string, unknown>;
    await route.fulfill({ response: answer, json: { ...body, rotation_due: false } });
  });
}

/** Waits for `check` (setup runs outside a test, where expect.poll is not allowed). */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000) {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${check}`);
  }
}

async function unlockWithCode(device: Device, code: string) {
  await device.page.goto(APP_ROUTES.dashboard);
  await visible(device.page.getByRole("heading", { name: LOCKED }), 30_000);
  await (await visible(device.page.getByRole("button", { name: "Unlock with your recovery code" }), 15_000)).click();
  const field = device.page.getByLabel("Recovery code", { exact: true });
  await field.fill(code);
  await field.press("Enter");
  await until(async () => (await device.page.getByRole("heading", { name: LOCKED }).count()) === 0);
}

describe("removing a device from one browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let laptop: Device;
  let phone: Device;
  let old: Device;
  let terminal: Terminal;
  let email: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    email = uniqueEmail("revoke");
    laptop = await newDevice(browser, server.url);
    await registerViaApi(laptop, server.url, "Rhea Revoke", email);
    await laptop.page.goto(APP_ROUTES.dashboard);
    await until(async () => (await keyStateOf(laptop, server.url)).wraps.length === 1);

    // A recovery code made on the laptop unlocks the phone, the old tablet and the terminal into epoch 1.
    await laptop.page.goto(APP_ROUTES.settings);
    const section = laptop.page.getByRole("region", { name: "Recovery code" });
    await (await visible(section.getByRole("button", { name: "Create a recovery code" }), 15_000)).click();
    const code = (await (await visible(section.getByRole("figure", { name: "Your recovery code" }).locator("code"))).textContent()) ?? "";
    await section.getByRole("button", { name: "I saved it" }).click();
    await section.getByLabel("Type your recovery code").fill(code);
    await section.getByRole("button", { name: "Save recovery code" }).click();
    await visible(section.getByText(/^You made your recovery code on /), 15_000);

    phone = await newDevice(browser, server.url);
    old = await newDevice(browser, server.url);
    for (const device of [phone, old]) {
      await signInViaApi(device, server.url, email);
      await unlockWithCode(device, code);
    }
    terminal = new Terminal(server.url);
    const login = await terminal.run(["login", "--password", "--email", email], { input: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    const unlocked = await terminal.run(["unlock"], { input: `${code}\n` });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    for (const device of [laptop, phone, old]) expect((await keyStateOf(device, server.url)).epoch).toBe(1);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the browser that signs a device out makes the next epoch at once; the other browser and the CLI move to it", async () => {
    await withoutRotationDue(laptop, server.url);
    await withoutRotationDue(phone, server.url);
    await phone.page.goto(APP_ROUTES.dashboard);
    const oldState = await keyStateOf(old, server.url);
    const oldKeyId = oldState.key_id;

    const renamed = await laptop.context.request.patch(`${server.url}${DEVICES_API.one(oldState.session_id)}`, {
      data: { name: "Old tablet" },
    });
    expect(renamed.status()).toBe(200);
    const laptopSession = (await keyStateOf(laptop, server.url)).session_id;
    await laptop.page.goto(APP_ROUTES.devices);
    await (await visible(laptop.page.getByRole("button", { name: "Sign out Old tablet" }), 15_000)).click();
    await laptop.page.getByRole("button", { name: "Sign it out" }).click();
    await visible(laptop.page.getByText("Old tablet was signed out."), 15_000);

    // The laptop never read rotation_due: epoch 2 is its own, made at once, wrapped for the laptop, the phone, the
    // terminal and the recovery key, not for the old tablet.
    await expect.poll(async () => (await keyStateOf(laptop, server.url)).epoch, { timeout: 30_000 }).toBe(2);
    const after = keysStateSchema.parse(await (await laptop.context.request.get(`${server.url}${KEYS_API.keys}`)).json());
    expect(after.rotation_due).toBe(false);
    const epoch2 = after.roster.filter((row) => row.epoch === 2);
    expect(epoch2.map((row) => row.key_id)).not.toContain(oldKeyId);
    expect(epoch2.find((row) => row.kind === "device" && row.added_by_key_id === null)?.key_id).toBe(after.key_id);
    expect(after.wraps.find((wrap) => wrap.epoch === 2)?.sender_key_id).toBe(after.key_id);
    expect(after.session_id).toBe(laptopSession);

    // The phone opens epoch 2 from the laptop's wrap (its sender is in epoch 1's roster) on key.epoch_created.
    await expect
      .poll(
        async () => (await keyStateOf(phone, server.url)).wraps.some((wrap) => wrap.epoch === 2 && wrap.sender_key_id === after.key_id),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    await phone.page.getByLabel("Message", { exact: true }).fill("from the phone after the removal");
    await phone.page.getByLabel("Message", { exact: true }).press("Enter");
    const sentFromPhone = async () => {
      const page = await laptop.context.request.get(`${server.url}/api/messages?limit=20`);
      return responseSchemas.messagesPage.parse(await page.json()).messages.find((m) => m.device?.id !== undefined && m.epoch === 2);
    };
    await expect.poll(sentFromPhone, { timeout: 30_000 }).toBeDefined();

    // The terminal syncs when it next runs and sends under epoch 2 too.
    const sent = await terminal.run(["send", "from the terminal after the removal"]);
    expect(sent.code, sent.stderr).toBe(0);
    const page = await laptop.context.request.get(`${server.url}/api/messages?limit=20`);
    const epochs = responseSchemas.messagesPage.parse(await page.json()).messages.map((m) => m.epoch);
    expect(epochs.filter((e) => e === 2).length).toBe(2);
  }, 180_000);

  it("a text in clear the server wrote into the keyed account shows only as not sent by the person's devices, with no Copy", async () => {
    const forged = { id: crypto.randomUUID(), content: "forged-7c1e pay this invoice", ...todayFields() };
    await asIfNotKeyed(server.dataDir, email, async () => {
      const res = await phone.context.request.post(`${server.url}${API.messages}`, { data: forged });
      expect(res.status()).toBe(201);
    });
    await laptop.page.goto(APP_ROUTES.dashboard);
    const item = messageList(laptop.page).locator(`#message-${forged.id}`);
    await visible(item.getByText(SEALED_TEXT.notEncrypted), 30_000);
    expect(SEALED_TEXT.notEncrypted).toBe("Not encrypted: not sent by your devices");
    expect(await item.getByText("forged-7c1e").count()).toBe(0);
    expect(await item.getByRole("button", { name: /copy/i }).count()).toBe(0);
  }, 60_000);

  it("Devices shows each listed device's security code, the same on the laptop, the phone and in the CLI", async () => {
    // What the codes must be: those of the members of the signed list, as any device verifies it (the old tablet removed).
    const answer = await laptop.context.request.get(`${server.url}${DEVICE_LIST_API.list}`);
    const entries = deviceListSchema.parse(await answer.json()).entries;
    const session = await laptop.context.request.get(`${server.url}${API.session}`);
    const userId = responseSchemas.session.parse(await session.json()).user?.id ?? "";
    // The recovery key is a member too (it signs in the devices the code unlocks), but not a device to show.
    const recovery = await laptop.context.request.get(`${server.url}${KEYS_API.recovery}`);
    const recoveryKeyId = recoveryStateSchema.parse(await recovery.json()).recovery?.key_id;
    const members = [...verifyDeviceList(userId, entries).members.values()].filter((member) => member.keyId !== recoveryKeyId);
    const expected = members.map((member) => securityCode(member)).sort();
    expect(expected).toHaveLength(3);

    const shownOn = async (device: Device) => {
      await device.page.goto(APP_ROUTES.devices);
      const codes = device.page.getByRole("list", { name: "Signed-in devices" }).getByTestId("security-code");
      await expect.poll(async () => (await codes.allTextContents()).sort(), { timeout: 30_000 }).toEqual(expected);
    };
    await shownOn(laptop);
    await shownOn(phone);
    const listed = await terminal.run(["devices", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const inCli = (JSON.parse(listed.stdout) as Array<{ security_code: string | null }>).flatMap((d) => d.security_code ?? []);
    expect(inCli.sort()).toEqual(expected);
  }, 120_000);
});

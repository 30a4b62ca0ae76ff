/// <reference path="../apps/extension/src/chrome.d.ts" />
/**
 * The browser extension follows the account's key (issue 46; docs/protocol/encryption.md, "Rotation and
 * revocation"): once a device that held it is signed out, the account moves to the next epoch, and what the extension
 * sends after is sealed under that one, which the signed-out device never held.
 */
import { API, APP_ROUTES, DEVICES_API, formatStoredDate, responseSchemas } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { twoReadingDevices } from "./support/approval.ts";
import { keyStateOf, messageList, uniqueEmail, visible } from "./support/daysync.ts";
import { type LoadedExtension, launchWithExtension, pairByQr } from "./support/extension.ts";
import { marker } from "./support/markers.ts";

const app = useStartedApp();
let extension: LoadedExtension;

beforeAll(async () => {
  extension = await launchWithExtension(app.server.url);
});
afterAll(async () => {
  await extension?.close();
});

describe("the browser extension and the account's key", () => {
  it("seals what it sends under the next epoch once a device that held the key is signed out", async () => {
    const [phone, laptop] = await twoReadingDevices(app.browser, app.server.url, { name: "Kei", email: uniqueEmail("ext-keys") });
    await pairByQr(extension, phone.context, app.server.url);
    const before = (await keyStateOf(phone, app.server.url)).epoch ?? 0;
    expect(before).toBeGreaterThan(0);

    const laptopSession = (await keyStateOf(laptop, app.server.url)).session_id;
    const get = async (path: string) => (await phone.context.request.get(`${app.server.url}${path}`)).json();
    const devices = responseSchemas.devices.parse(await get(DEVICES_API.list)).devices;
    const laptopName = devices.find((device) => device.id === laptopSession)?.name ?? "";
    await phone.page.goto(APP_ROUTES.devices);
    await phone.page.getByRole("button", { name: `Sign out ${laptopName}`, exact: true }).click();
    await phone.page.getByRole("button", { name: "Sign it out" }).click();
    await expect.poll(async () => (await keyStateOf(phone, app.server.url)).epoch, { timeout: 30_000 }).toBe(before + 1);

    const text = `after the rotation ${marker("rotation")}`;
    await extension.menuClick({ selectionText: text, pageUrl: "https://example.com/keys" });
    await phone.page.goto(APP_ROUTES.dashboard);
    await visible(messageList(phone.page).getByText(text), 30_000);

    const today = responseSchemas.days.parse(await get(API.days)).days.find((day) => day.date === formatStoredDate(new Date()));
    const { messages } = responseSchemas.dayMessages.parse(await get(API.dayMessages(today?.id ?? "")));
    expect(messages.at(-1)?.epoch).toBe(before + 1);
  });
});

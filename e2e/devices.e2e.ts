import { DEVICES_API, responseSchemas } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twoReadingDevices } from "./support/approval.ts";
import { launchBrowser } from "./support/browser.ts";
import { type Device, expectFieldError, hidden, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

/** The name the server gives this browser's own device. */
async function ownDeviceName(device: Device, baseURL: string): Promise<string> {
  const res = await device.context.request.get(`${baseURL}${DEVICES_API.list}`);
  const name = responseSchemas.devices.parse(await res.json()).devices.find((d) => d.current)?.name;
  if (!name) throw new Error("no current device");
  return name;
}

describe("devices: which device sent a message, pending or sent, rename, sign out all others", () => {
  let server: RunningServer;
  let browser: Browser;
  let laptop: Device;
  let phone: Device;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    [laptop, phone] = await twoReadingDevices(
      browser,
      server.url,
      { name: "Dev Ice", email: uniqueEmail("devices") },
      { second: { width: 390, height: 844 } },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows on the other device which device sent a message, and marks a message pending until it is sent", async () => {
    await Promise.all([laptop.page.goto("/dashboard"), phone.page.goto("/dashboard")]);
    const laptopName = await ownDeviceName(laptop, server.url);
    await sendMessage(laptop.page, "hello from the laptop");

    const onPhone = messageList(phone.page).getByRole("listitem").filter({ hasText: "hello from the laptop" });
    await visible(onPhone);
    // A small label, read out as "Sent from <device>".
    await visible(onPhone.getByText(`Sent from ${laptopName}`, { exact: true }));
    await visible(onPhone.getByText("Sent", { exact: true }));

    await laptop.context.setOffline(true);
    await visible(laptop.page.getByRole("status").filter({ hasText: "Offline" }));
    await sendMessage(laptop.page, "typed in the tunnel");
    const pending = messageList(laptop.page).getByRole("listitem").filter({ hasText: "typed in the tunnel" });
    await visible(pending.getByText(/^Pending/));
    await visible(pending.getByText("Sent from This device", { exact: true }));
    expect(await pending.getByText("Sent", { exact: true }).count()).toBe(0);

    await laptop.context.setOffline(false);
    await visible(pending.getByText("Sent", { exact: true }), 15_000);
    await hidden(pending.getByText(/^Pending/));
    await visible(pending.getByText(`Sent from ${laptopName}`, { exact: true }));
    const arrived = messageList(phone.page).getByRole("listitem").filter({ hasText: "typed in the tunnel" });
    await visible(arrived.getByText(`Sent from ${laptopName}`, { exact: true }), 15_000);
  });

  it("renames a device on the Devices page: checked, and shown live on the other device's list and on its messages", async () => {
    await Promise.all([laptop.page.goto("/dashboard/devices"), phone.page.goto("/dashboard/devices")]);
    const laptopName = await ownDeviceName(laptop, server.url);
    await visible(phone.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem").nth(1));
    // This device comes first.
    const firstOnLaptop = laptop.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem").first();
    await visible(firstOnLaptop.getByText("This device"));

    await laptop.page.getByRole("button", { name: `Rename ${laptopName} (this device)` }).click();
    const field = laptop.page.getByLabel("Device name", { exact: true });
    expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
    await field.fill("   ");
    await field.press("Enter");
    await expectFieldError(laptop.page, "Device name", "Enter a name for the device.");
    await field.fill("x".repeat(61));
    await field.press("Enter");
    await expectFieldError(laptop.page, "Device name", "A device name must be at most 60 characters.");
    await field.fill("Work laptop");
    await field.press("Enter");
    await visible(firstOnLaptop.getByText("Work laptop"));
    await hidden(field);
    // The keyboard carries on from the Rename button; Escape leaves the field without renaming.
    const renameButton = laptop.page.getByRole("button", { name: "Rename Work laptop (this device)" });
    expect(await renameButton.evaluate((el) => el === document.activeElement)).toBe(true);
    await laptop.page.keyboard.press("Enter");
    await field.fill("Never saved");
    await field.press("Escape");
    await hidden(field);
    expect(await laptop.page.getByText("Never saved").count()).toBe(0);

    // Live on the phone's open list, without a reload.
    await visible(phone.page.getByText("Work laptop", { exact: true }));
    // And on the laptop's messages.
    await phone.page.goto("/dashboard");
    const item = messageList(phone.page).getByRole("listitem").filter({ hasText: "hello from the laptop" });
    await visible(item.getByText("Sent from Work laptop", { exact: true }));
  });

  it("signs out all other devices after a confirmation: the other device is signed out at once", async () => {
    await laptop.page.goto("/dashboard/devices");
    await laptop.page.getByRole("button", { name: "Sign out all other devices" }).click();
    await visible(laptop.page.getByText(/Only this one stays signed in/));
    await laptop.page.getByRole("button", { name: "Yes, sign them out" }).click();

    await visible(phone.page.getByText("You were signed out on this device."));
    await phone.page.waitForURL(/\/login/);
    expect((await phone.context.request.get(`${server.url}/api/me`)).status()).toBe(401);
    await visible(laptop.page.getByText("1 other device was signed out."));
    const rows = laptop.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem");
    await laptop.page.waitForFunction(() => document.querySelectorAll(".device-row").length === 1);
    expect(await rows.count()).toBe(1);
    expect(await laptop.page.getByRole("button", { name: "Sign out all other devices" }).count()).toBe(0);
    expect((await laptop.context.request.get(`${server.url}/api/me`)).status()).toBe(200);
  });
});

/** Deleting in real Chromium: one message with Undo, offline, and a whole day, seen on two devices of one user. */

import { API, formatDisplayDate, formatStoredDate, TEXT } from "@daysync/shared";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { twoReadingDevices } from "./support/approval.ts";
import { type Device, hidden, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp();

/** A phone and a laptop of one new user, both on today's page. */
async function twoDevices(tag: string): Promise<{ phone: Device; laptop: Device }> {
  const [phone, laptop] = await twoReadingDevices(app.browser, app.server.url, { name: "Dana Delete", email: uniqueEmail(tag) });
  for (const { page } of [phone, laptop]) {
    await page.goto("/dashboard");
    await visible(page.getByPlaceholder(TEXT.messagePlaceholder));
  }
  return { phone, laptop };
}

const messageItem = (page: Page, text: string) => messageList(page).getByRole("listitem").filter({ hasText: text });

/** Sends from the phone and waits until both devices show it; its id. */
async function sendAndSee(phone: Device, laptop: Device, text: string): Promise<string> {
  await sendMessage(phone.page, text);
  await visible(messageItem(phone.page, text));
  await visible(messageItem(laptop.page, text));
  return (await messageItem(laptop.page, text).getAttribute("id"))?.replace("message-", "") ?? "";
}

/** Whether the server still serves the message: by id, as what it keeps of the text is sealed. */
async function serverHas(device: Device, id: string): Promise<boolean> {
  const days = (await (await device.context.request.get(`${app.server.url}${API.days}`)).json()) as { days: Array<{ id: string }> };
  for (const day of days.days) {
    const res = await device.context.request.get(`${app.server.url}${API.dayMessages(day.id)}`);
    const { messages } = (await res.json()) as { messages: Array<{ id: string }> };
    if (messages.some((m) => m.id === id)) return true;
  }
  return false;
}

describe("deleting a message", () => {
  it("hides it at once, and once the Undo time is over it is gone on the other device and on the server", async () => {
    const { phone, laptop } = await twoDevices("del");
    const kept = await sendAndSee(phone, laptop, "keep this one");
    const deleted = await sendAndSee(phone, laptop, "delete this one");

    await messageItem(phone.page, "delete this one").getByRole("button", { name: "Delete message" }).click();
    await hidden(messageItem(phone.page, "delete this one"), 2_000);
    await visible(phone.page.getByRole("button", { name: "Undo" }));
    await visible(phone.page.getByText("Message deleted."));

    await hidden(messageItem(laptop.page, "delete this one"), 15_000);
    await visible(messageItem(laptop.page, "keep this one"));
    expect(await serverHas(phone, deleted)).toBe(false);
    expect(await serverHas(phone, kept)).toBe(true);
    // The day's count follows on both.
    for (const { page } of [phone, laptop]) await visible(page.getByText("1 message", { exact: true }));
    await phone.context.close();
    await laptop.context.close();
  });

  it("Undo brings it back: the server and the other device keep it", async () => {
    const { phone, laptop } = await twoDevices("undo");
    const id = await sendAndSee(phone, laptop, "changed my mind");

    // Keyboard: the Delete button is reachable and works with Enter.
    await messageItem(phone.page, "changed my mind").getByRole("button", { name: "Delete message" }).focus();
    await phone.page.keyboard.press("Enter");
    await hidden(messageItem(phone.page, "changed my mind"), 2_000);
    await phone.page.getByRole("button", { name: "Undo" }).click();
    await visible(messageItem(phone.page, "changed my mind"));

    // Well past the time the deletion would have gone out.
    await phone.page.waitForTimeout(7_000);
    await visible(messageItem(phone.page, "changed my mind"));
    await visible(messageItem(laptop.page, "changed my mind"));
    expect(await serverHas(phone, id)).toBe(true);
    await phone.page.reload();
    await visible(messageItem(phone.page, "changed my mind"));
    await phone.context.close();
    await laptop.context.close();
  });

  it("made offline, waits in the outbox and goes out when the connection is back", async () => {
    const { phone, laptop } = await twoDevices("offdel");
    const id = await sendAndSee(phone, laptop, "deleted on the train");

    await phone.context.setOffline(true);
    await messageItem(phone.page, "deleted on the train").getByRole("button", { name: "Delete message" }).click();
    await hidden(messageItem(phone.page, "deleted on the train"), 2_000);
    await hidden(phone.page.getByRole("button", { name: "Undo" }), 15_000);
    await phone.page.waitForTimeout(1_000);
    // Still hidden here, still there for the other device: nothing reached the server.
    await hidden(messageItem(phone.page, "deleted on the train"), 1_000);
    await visible(messageItem(laptop.page, "deleted on the train"));
    expect(await serverHas(laptop, id)).toBe(true);

    await phone.context.setOffline(false);
    await phone.page.evaluate(() => window.dispatchEvent(new Event("online")));
    await hidden(messageItem(laptop.page, "deleted on the train"), 20_000);
    expect(await serverHas(laptop, id)).toBe(false);
    await phone.context.close();
    await laptop.context.close();
  });
});

describe("a notification of a deleted message", () => {
  it("closes on the device that deletes it", async () => {
    const { phone, laptop } = await twoDevices("notif");
    await phone.context.grantPermissions(["notifications"]);
    await sendAndSee(laptop, phone, "notified here");
    await phone.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    const messageId = (await messageItem(phone.page, "notified here").getAttribute("id"))?.replace("message-", "") ?? "";
    // What the service worker shows for a push of this message: its data names the message and the day.
    const count = await phone.page.evaluate(async (message_id) => {
      const registration = await navigator.serviceWorker.ready;
      await registration.showNotification("New message", { tag: "day-x", data: { message_id, day_id: "x", url: "/dashboard" } });
      return (await registration.getNotifications()).length;
    }, messageId);
    expect(count).toBe(1);

    await messageItem(phone.page, "notified here").getByRole("button", { name: "Delete message" }).click();
    await hidden(messageItem(laptop.page, "notified here"), 15_000);
    await expect
      .poll(() => phone.page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length), {
        timeout: 5_000,
      })
      .toBe(0);
    await phone.context.close();
    await laptop.context.close();
  });
});

describe("clearing a day", () => {
  it("asks first, naming how many messages go; Escape cancels; Delete empties the day on both devices", async () => {
    const { phone, laptop } = await twoDevices("clear");
    const ids: string[] = [];
    for (const text of ["first of three", "second of three", "third of three"]) ids.push(await sendAndSee(phone, laptop, text));
    const today = formatDisplayDate(formatStoredDate(new Date()));

    await phone.page.getByRole("button", { name: "Clear this day" }).click();
    const dialog = phone.page.getByRole("dialog", { name: `Delete 3 messages of ${today}?` });
    await visible(dialog);
    await phone.page.keyboard.press("Escape");
    await hidden(dialog);
    await visible(messageItem(phone.page, "first of three"));
    expect(await serverHas(phone, ids[0] ?? "")).toBe(true);

    await phone.page.getByRole("button", { name: "Clear this day" }).click();
    await visible(dialog);
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await hidden(dialog);
    await visible(phone.page.getByText("3 messages deleted."));
    for (const { page } of [phone, laptop]) {
      await visible(page.getByText(TEXT.noMessages), 15_000);
      await hidden(messageItem(page, "of three"));
    }
    expect(await serverHas(phone, ids[1] ?? "")).toBe(false);
    await phone.context.close();
    await laptop.context.close();
  });
});

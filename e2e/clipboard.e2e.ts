/** The phone's side of the clipboard both ways in real Chromium: the toast's Copy and the notification's Copy action. */
import { SEALED_TEXT, TEXT } from "@daysync/shared";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { sendMessage, signInViaApi, uniqueEmail } from "./support/daysync.ts";
import { NodeDevice } from "./support/node-device.ts";

const app = useStartedApp();

let phone: BrowserContext;
let page: Page;
/** Another device of the same account, holding its key: a laptop running daysync clip, say. */
let laptop: NodeDevice;

async function sendFrom(device: NodeDevice, content: string): Promise<{ id: string; dayId: string }> {
  const message = await device.sendSealed(content);
  return { id: message.id, dayId: message.date_message_id };
}

const clipboardText = () => page.evaluate(() => navigator.clipboard.readText());

beforeAll(async () => {
  laptop = await NodeDevice.register(app.server.url, "Clip", uniqueEmail("clip"));
  phone = await app.browser.newContext({ baseURL: app.server.url });
  await phone.grantPermissions(["clipboard-read", "clipboard-write", "notifications"], { origin: app.server.url });
  page = await phone.newPage();
  await signInViaApi({ context: phone, page }, app.server.url, laptop.email);
  // Toasts are for texts that arrive live: the test sends once the live connection is current.
  const live = new Promise<void>((resolve) =>
    page.on("websocket", (socket) =>
      socket.on("framereceived", (frame) => {
        if (String(frame.payload).includes('"type":"ready"')) resolve();
      }),
    ),
  );
  await page.goto("/dashboard");
  // Signed in by password: the laptop approves the phone by typing the code it shows, so it reads what the laptop seals.
  await page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).waitFor({ timeout: 15_000 });
  await laptop.approveByCheckCode(page);
  await page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).waitFor({ state: "detached", timeout: 15_000 });
  await page.getByLabel("Message", { exact: true }).waitFor();
  await live;
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
});

afterAll(async () => {
  await laptop?.dispose();
  await phone?.close();
});

describe("clipboard on the phone", () => {
  it("a text from another device shows a toast whose Copy puts it in the clipboard; one's own texts do not", async () => {
    await sendMessage(page, "sent from this phone");
    await sendFrom(laptop, "copied on the laptop");
    const toast = page.locator(".Toastify__toast", { hasText: "copied on the laptop" });
    await toast.getByRole("button", { name: "Copy" }).click();
    await page.locator(".Toastify__toast", { hasText: TEXT.copied }).waitFor();
    expect(await clipboardText()).toBe("copied on the laptop");
    await page.getByRole("list", { name: "Messages" }).getByText("sent from this phone").waitFor();
    expect(await page.locator(".Toastify__toast", { hasText: "sent from this phone" }).count()).toBe(0);
  });

  it("the notification's Copy action (a notificationclick dispatched in the service worker) opens the day and copies the text", async () => {
    const sent = await sendFrom(laptop, "from the notification");
    const worker = phone.serviceWorkers()[0] ?? (await phone.waitForEvent("serviceworker"));
    // The notification as the worker shows it for a pushed text, then the tap on its Copy action.
    await worker.evaluate(
      async ({ id, dayId }) => {
        // The worker's globals, which the DOM types of this file do not declare.
        const sw = self as unknown as {
          registration: ServiceWorkerRegistration;
          dispatchEvent(event: Event): boolean;
          NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
        };
        await sw.registration.showNotification("New message", {
          body: "from the notification",
          tag: `day-${dayId}`,
          data: { url: `/dashboard/days/${dayId}`, message_id: id, day_id: dayId, message_type: "text" },
          actions: [{ action: "copy", title: "Copy" }],
        } as NotificationOptions);
        const [notification] = await sw.registration.getNotifications({ tag: `day-${dayId}` });
        if (!notification) throw new Error("no notification shown");
        sw.dispatchEvent(new sw.NotificationEvent("notificationclick", { notification, action: "copy" }));
      },
      { id: sent.id, dayId: sent.dayId },
    );
    await page.waitForURL(`${app.server.url}/dashboard/days/${sent.dayId}`);
    await page.locator(".Toastify__toast", { hasText: TEXT.copied }).last().waitFor();
    expect(await clipboardText()).toBe("from the notification");
  });
});

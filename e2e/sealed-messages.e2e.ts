/**
 * Messages sealed on a device (docs/protocol/encryption.md, "Sealed messages"), as the browser shows them: opened on the device once it
 * holds the key, never the ciphertext; "Locked" until it is approved, what it types meanwhile waiting and then sent
 * sealed; "This message could not be decrypted", with no Copy, for a value someone changed on the server. The other
 * sealing device runs in the test's process (support/node-device).
 */
import { APP_ROUTES, COPY_MESSAGE_PARAM, type NewMessagePush, SEALED_TEXT, SEALED_VALUE_PATTERN } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";
import { tamperWithMessage } from "./support/server-data.ts";

describe("sealed messages in the browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const email = uniqueEmail("sealed");
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Sol Sealed", email));
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
  });

  it("shows Locked until this device is approved, then the text, its day's preview and Copy", async () => {
    const sent = await phone.sendSealed("the door code is 4711");
    await laptop.page.goto(APP_ROUTES.dashboard);
    const list = messageList(laptop.page);
    await visible(list.getByText(SEALED_TEXT.locked), 15_000);
    expect(await laptop.page.getByRole("link", { name: new RegExp(SEALED_TEXT.locked) }).count()).toBe(1);
    expect(await laptop.page.getByText(sent.content).count()).toBe(0);
    expect(await list.getByRole("button", { name: "Copy" }).count()).toBe(0);
    // A notification's Copy opens the app to copy it: a locked device says why it cannot, not that it is broken.
    await laptop.page.goto(`${APP_ROUTES.dashboard}?${COPY_MESSAGE_PARAM}=${sent.id}`);
    await visible(laptop.page.getByRole("alert").filter({ hasText: SEALED_TEXT.locked }), 15_000);
    expect(await laptop.page.getByText(SEALED_TEXT.undecryptable).count()).toBe(0);

    // Search on the device finds nothing it cannot open yet.
    await laptop.page.getByLabel("Search messages").fill("door code");
    await visible(laptop.page.getByText("No messages match “door code”."), 15_000);
    await laptop.page.getByRole("button", { name: "Clear search" }).click();

    // What it types meanwhile waits, saying why, and goes out sealed once it is approved.
    await sendMessage(laptop.page, "typed before approval");
    const waiting = list.getByRole("listitem").filter({ hasText: "typed before approval" });
    await visible(waiting.getByText(SEALED_TEXT.approveToSend), 15_000);
    const waitingId = (await waiting.getAttribute("id"))?.replace("message-", "") ?? "";

    await phone.approveByCheckCode(laptop.page);

    await visible(list.getByText("the door code is 4711"), 15_000);
    await visible(waiting.getByText("Sent", { exact: true }), 15_000);
    // The day's preview is of its latest message, opened here.
    await visible(laptop.page.getByRole("link", { name: /typed before approval/ }));
    const { stored, opened } = await phone.open(waitingId);
    expect(stored.content).toMatch(SEALED_VALUE_PATTERN);
    expect(stored.preview).toMatch(SEALED_VALUE_PATTERN);
    expect(JSON.stringify(stored)).not.toContain("typed before approval");
    expect(opened).toMatchObject({ state: "opened", text: "typed before approval" });
    expect(await list.getByRole("button", { name: "Copy" }).count()).toBe(2);
    expect(await list.getByText(SEALED_TEXT.locked).count()).toBe(0);
    // Approved, its search opens them at once (what it paged through while locked is not kept).
    await laptop.page.getByLabel("Search messages").fill("door code");
    await visible(laptop.page.getByRole("link", { name: /the door code is 4711/ }), 15_000);
    await laptop.page.getByRole("button", { name: "Clear search" }).click();
  });

  it("opens a sealed message that arrives live, and finds sealed messages by search on the device", async () => {
    await phone.sendSealed("wifi password: correct-horse-7");
    const list = messageList(laptop.page);
    await visible(list.getByText("wifi password: correct-horse-7"), 15_000);

    await laptop.page.getByLabel("Search messages").fill("horse");
    const hit = await visible(laptop.page.getByRole("link", { name: /wifi password: correct-horse-7/ }), 15_000);
    expect(await hit.count()).toBe(1);
    await laptop.page.getByRole("button", { name: "Clear search" }).click();
  });

  it("takes a message deleted on another device out of the search results showing it", async () => {
    const sent = await phone.sendSealed("gate code 9911");
    await laptop.page.getByLabel("Search messages").fill("gate code");
    const hit = await visible(laptop.page.getByRole("link", { name: /gate code 9911/ }), 15_000);
    await phone.deleteMessage(sent.id);
    await hit.waitFor({ state: "detached", timeout: 15_000 });
    await visible(laptop.page.getByText("No messages match “gate code”."));
    await laptop.page.getByRole("button", { name: "Clear search" }).click();
  });

  it("says a message someone changed on the server could not be decrypted, with no Copy", async () => {
    const sent = await phone.sendSealed("bank pin 2580");
    const list = messageList(laptop.page);
    await visible(list.getByText("bank pin 2580"), 15_000);
    tamperWithMessage(server.dataDir, sent.id);
    await laptop.page.reload();
    const item = list.getByRole("listitem").filter({ hasText: SEALED_TEXT.undecryptable });
    await visible(item, 15_000);
    expect(await item.getByRole("button", { name: "Copy" }).count()).toBe(0);
    expect(await list.getByText("bank pin 2580").count()).toBe(0);
    // The others still open.
    await visible(list.getByText("the door code is 4711"));
  });

  it("shows a pushed sealed message's text in the notification, opened by the service worker", async () => {
    await laptop.context.grantPermissions(["notifications"], { origin: server.url });
    const worker = laptop.context.serviceWorkers()[0] ?? (await laptop.context.waitForEvent("serviceworker"));
    const sent = await phone.sendSealed("parcel locker 8812");
    // What the server pushes for it (push.service.ts `payloadOf`; its own test checks the server's side).
    const payload: NewMessagePush = {
      kind: "message.created",
      title: "New message",
      body: "",
      day_id: sent.date_message_id,
      message_id: sent.id,
      message_type: "text",
      url: `/dashboard/days/${sent.date_message_id}`,
      sealed: {
        user_id: phone.userId,
        epoch: sent.epoch ?? 0,
        preview: sent.preview ?? "",
        date: sent.date,
        time: sent.time,
        device_id: sent.device?.id ?? "",
      },
    };
    // The worker shows no notification while the app is in view.
    await laptop.page.close();
    const bodies = await worker.evaluate(async (data) => {
      // The worker's globals, which the DOM types of this file do not declare.
      const sw = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent(event: Event): boolean;
        PushEvent: new (type: string, init: { data: string }) => Event;
      };
      sw.dispatchEvent(new sw.PushEvent("push", { data }));
      for (let i = 0; i < 50; i++) {
        const shown = await sw.registration.getNotifications();
        if (shown.length > 0) return shown.map((n) => n.body);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    }, JSON.stringify(payload));
    expect(bodies).toEqual(["parcel locker 8812"]);
  });
});

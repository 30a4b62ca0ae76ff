/**
 * A message sealed just before the account's key moves on (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"): the server refuses it
 * (409), the browser says the devices are moving to a new key, makes the next epoch itself (the device that held the
 * key was removed), seals the same message again under it and sends it once.
 */
import { API, APP_ROUTES, responseSchemas, SEALED_TEXT } from "@daysync/shared";
import type { Browser, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, keyStateOf, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";

describe("sealing again when the key moves on", () => {
  let server: RunningServer;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const email = uniqueEmail("reseal");
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Remy Reseal", email));
    await laptop.page.goto(APP_ROUTES.dashboard);
    await visible(laptop.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }), 30_000);
    await phone.approveByCheckCode(laptop.page);
    await laptop.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).waitFor({ state: "detached", timeout: 30_000 });
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
  });

  it("a send the server refuses because a device was removed meanwhile goes out once, sealed under the next epoch", async () => {
    expect((await keyStateOf(laptop, server.url)).epoch).toBe(1);
    // The first try is held on its way until the phone, which held the key, has signed out.
    let held: Route | undefined;
    const posted: string[] = [];
    await laptop.page.route(`${server.url}${API.messages}`, async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      posted.push(route.request().postData() ?? "");
      if (posted.length === 1) held = route;
      else await route.continue();
    });
    await sendMessage(laptop.page, "sealed twice, sent once");
    await expect.poll(() => held !== undefined, { timeout: 15_000 }).toBe(true);
    await phone.signOut();
    await held?.continue();

    const item = messageList(laptop.page).getByRole("listitem").filter({ hasText: "sealed twice, sent once" });
    await visible(item.getByText("Sent", { exact: true }), 30_000);
    expect((await keyStateOf(laptop, server.url)).epoch).toBe(2);
    const first = JSON.parse(posted[0] ?? "{}") as { id: string; epoch: number };
    const second = JSON.parse(posted.at(-1) ?? "{}") as { id: string; epoch: number };
    expect([first.epoch, second.epoch]).toEqual([1, 2]);
    expect(second.id).toBe(first.id);
    // Stored once, under epoch 2, and it opens: it shows as text after a reload.
    const page = await laptop.context.request.get(`${server.url}${API.messages}?limit=10`);
    const stored = responseSchemas.messagesPage.parse(await page.json()).messages.filter((m) => m.id === first.id);
    expect(stored.map((m) => m.epoch)).toEqual([2]);
    await laptop.page.unroute(`${server.url}${API.messages}`);
    await laptop.page.reload();
    await visible(messageList(laptop.page).getByText("sealed twice, sent once"), 30_000);
  });
});

/**
 * A message sealed just before the account's key moves on (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"): the server refuses it
 * (409, here as the answer to its send on the live socket), the browser says the devices are moving to a new key, makes the next epoch itself (the device that held the
 * key was removed), seals the same message again under it and sends it once.
 */
import { API, APP_ROUTES, responseSchemas, SEALED_TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
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
    // The page sends on its live socket (issue 47): the first send frame is held on its way until the phone, which
    // held the key, has signed out.
    let release: (() => void) | undefined;
    let ready = false;
    const sent: Array<{ id: string; epoch: number }> = [];
    await laptop.page.routeWebSocket(/\/api\/live$/, (page) => {
      const upstream = page.connectToServer();
      page.onMessage((frame) => {
        const parsed = typeof frame === "string" ? (JSON.parse(frame) as { type: string; body?: { id: string; epoch: number } }) : null;
        if (parsed?.type === "send" && parsed.body) {
          sent.push(parsed.body);
          if (sent.length === 1) {
            release = () => upstream.send(frame);
            return;
          }
        }
        upstream.send(frame);
      });
      upstream.onMessage((frame) => {
        if (typeof frame === "string" && frame.includes('"ready"')) ready = true;
        page.send(frame);
      });
    });
    await laptop.page.reload();
    await expect.poll(() => ready, { timeout: 30_000 }).toBe(true);
    await sendMessage(laptop.page, "sealed twice, sent once");
    await expect.poll(() => release !== undefined, { timeout: 15_000 }).toBe(true);
    await phone.signOut();
    release?.();

    const item = messageList(laptop.page).getByRole("listitem").filter({ hasText: "sealed twice, sent once" });
    await visible(item.getByText("Sent", { exact: true }), 30_000);
    expect((await keyStateOf(laptop, server.url)).epoch).toBe(2);
    const [first, second] = [sent[0], sent.at(-1)];
    expect([first?.epoch, second?.epoch]).toEqual([1, 2]);
    expect(second?.id).toBe(first?.id);
    // Stored once, under epoch 2, and it opens: it shows as text after a reload.
    const page = await laptop.context.request.get(`${server.url}${API.messages}?limit=10`);
    const stored = responseSchemas.messagesPage.parse(await page.json()).messages.filter((m) => m.id === first?.id);
    expect(stored.map((m) => m.epoch)).toEqual([2]);
    await laptop.page.reload();
    await visible(messageList(laptop.page).getByText("sealed twice, sent once"), 30_000);
  });
});

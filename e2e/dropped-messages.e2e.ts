/**
 * Gaps shown, not hidden (docs/protocol/encryption.md, "Sealed messages"), in Chromium: a message one of the person's
 * devices numbered and the server dropped shows as "1 message from Laptop did not arrive" where it is missing; the
 * browser numbers what it sends too, and a reload goes on counting (IndexedDB).
 */
import { APP_ROUTES } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";
import { dropMessage } from "./support/server-data.ts";

describe("a dropped message in the browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Gus Gaps", uniqueEmail("gaps")));
    await laptop.page.goto(APP_ROUTES.dashboard);
    await phone.approveByCheckCode(laptop.page);
    await phone.numberAs("Laptop");
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
  });

  it("shows 1 message from Laptop did not arrive, before the message that came after it", async () => {
    await phone.sendSealed("one");
    const dropped = await phone.sendSealed("two");
    await phone.sendSealed("three");
    const list = messageList(laptop.page);
    await visible(list.getByText("three"), 15_000);
    expect(await list.getByText("did not arrive").count()).toBe(0);

    dropMessage(server.dataDir, dropped.id);
    await laptop.page.reload();
    const gap = list.getByRole("status").filter({ hasText: "1 message from Laptop did not arrive" });
    await visible(gap, 15_000);
    const items = await list.locator(":scope > li").allTextContents();
    const at = items.findIndex((text) => text.includes("1 message from Laptop did not arrive"));
    expect(items[at - 1]).toContain("one");
    expect(items[at + 1]).toContain("three");
  });

  it("a message deleted in the browser (its sealed note left first) is no gap", async () => {
    await phone.sendSealed("alpha");
    const beta = await phone.sendSealed("beta");
    await phone.sendSealed("gamma");
    const list = messageList(laptop.page);
    await visible(list.getByText("gamma"), 15_000);
    await list.locator(`#message-${beta.id}`).getByRole("button", { name: "Delete message" }).click();
    // Past Undo's time, the deletion goes out with its note.
    await expect.poll(async () => (await phone.messageIds()).includes(beta.id), { timeout: 20_000 }).toBe(false);
    await laptop.page.reload();
    await visible(list.getByText("gamma"), 15_000);
    // The day's gaps are worked out after its messages show: the first test's gap showing means they have been.
    await visible(list.getByRole("status").filter({ hasText: "1 message from Laptop did not arrive" }), 15_000);
    expect(await list.getByText("beta", { exact: true }).count()).toBe(0);
    const items = await list.locator(":scope > li").allTextContents();
    const gamma = items.findIndex((text) => text.includes("gamma"));
    expect(items[gamma - 1]).toContain("alpha");
    expect(items.filter((text) => text.includes("did not arrive"))).toHaveLength(1);
  });

  it("numbers what the browser sends, going on after a reload", async () => {
    await sendMessage(laptop.page, "numbered in the browser");
    const list = messageList(laptop.page);
    await visible(list.getByRole("listitem").filter({ hasText: "numbered in the browser" }).getByText("Sent", { exact: true }), 15_000);
    await laptop.page.reload();
    await sendMessage(laptop.page, "numbered after a reload");
    await visible(list.getByRole("listitem").filter({ hasText: "numbered after a reload" }).getByText("Sent", { exact: true }), 15_000);
    const ids = await phone.messageIds();
    const numbers = [];
    for (const id of ids) {
      const { opened } = await phone.open(id);
      if (opened.state === "opened" && opened.text.startsWith("numbered")) numbers.push(opened.number?.n);
    }
    expect(numbers.sort()).toEqual([1, 2]);
  });
});

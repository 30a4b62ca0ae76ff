/**
 * Issue 47 in Chromium: the page sends what is typed (and deletes a message) as a frame on its live socket while that
 * socket is current, and over HTTP when there is none; either way the other device reads it, sealed, once.
 */
import { API, APP_ROUTES } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, hidden, messageList, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";

describe("sending from the browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;
  const posts: string[] = [];
  const deletes: string[] = [];
  const sentFrames: string[] = [];
  let ready = false;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Sol Socket", uniqueEmail("socket")));
    laptop.page.on("request", (request) => {
      const { pathname } = new URL(request.url());
      if (request.method() === "POST" && pathname === API.messages) posts.push(request.url());
      if (request.method() === "DELETE" && pathname.startsWith(`${API.messages}/`)) deletes.push(request.url());
    });
    laptop.page.on("websocket", (socket) => {
      socket.on("framesent", (frame) => {
        if (typeof frame.payload === "string") sentFrames.push(frame.payload);
      });
      socket.on("framereceived", (frame) => {
        if (typeof frame.payload === "string" && frame.payload.includes('"ready"')) ready = true;
      });
    });
    await laptop.page.goto(APP_ROUTES.dashboard);
    await phone.approveByCheckCode(laptop.page);
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
  });

  async function storedOnce(text: string) {
    const withText = async () => {
      const found = [];
      for (const id of await phone.messageIds()) {
        const { opened } = await phone.open(id);
        if (opened.state === "opened" && opened.text === text) found.push(id);
      }
      return found;
    };
    await expect.poll(withText, { timeout: 15_000, interval: 500 }).toHaveLength(1);
  }

  const framesOfType = (type: string) =>
    sentFrames.map((frame) => JSON.parse(frame) as { type: string }).filter((frame) => frame.type === type);
  const sendFrames = () => framesOfType("send");

  it("sends a typed message as a frame on the live socket, with no HTTP send", async () => {
    await expect.poll(() => ready, { timeout: 15_000 }).toBe(true);
    const before = posts.length;
    await sendMessage(laptop.page, "typed while the socket is open");
    const item = messageList(laptop.page).getByRole("listitem").filter({ hasText: "typed while the socket is open" });
    await visible(item.getByText("Sent", { exact: true }), 15_000);
    expect(sendFrames().length).toBeGreaterThan(0);
    expect(posts.length).toBe(before);
    await storedOnce("typed while the socket is open");
  });

  it("deletes a message of the day as a frame on the live socket, with no HTTP DELETE", async () => {
    const item = messageList(laptop.page).getByRole("listitem").filter({ hasText: "typed while the socket is open" });
    const id = (await item.getAttribute("id"))?.replace("message-", "") ?? "";
    expect(await phone.messageIds()).toContain(id);
    const before = deletes.length;
    await item.getByRole("button", { name: "Delete message" }).click();
    await hidden(item, 2_000);
    // Once its time for Undo is over, the outbox sends it.
    await expect.poll(async () => (await phone.messageIds()).includes(id), { timeout: 20_000, interval: 500 }).toBe(false);
    expect(framesOfType("delete")).toContainEqual(expect.objectContaining({ type: "delete", id }));
    expect(deletes.length).toBe(before);
  });

  it("sends over HTTP when the page has no live socket", async () => {
    await laptop.page.routeWebSocket(/\/api\/live$/, (socket) => socket.close({ code: 1011, reason: "not today" }));
    await laptop.page.reload();
    const framesBefore = sendFrames().length;
    const before = posts.length;
    await sendMessage(laptop.page, "typed with no socket");
    const item = messageList(laptop.page).getByRole("listitem").filter({ hasText: "typed with no socket" });
    await visible(item.getByText("Sent", { exact: true }), 15_000);
    expect(posts.length).toBe(before + 1);
    expect(sendFrames().length).toBe(framesBefore);
    await storedOnce("typed with no socket");

    // And its deletion goes over HTTP too.
    const id = (await item.getAttribute("id"))?.replace("message-", "") ?? "";
    const deletesBefore = deletes.length;
    const deleteFramesBefore = framesOfType("delete").length;
    await item.getByRole("button", { name: "Delete message" }).click();
    await expect.poll(async () => (await phone.messageIds()).includes(id), { timeout: 20_000, interval: 500 }).toBe(false);
    expect(deletes.length).toBe(deletesBefore + 1);
    expect(framesOfType("delete").length).toBe(deleteFramesBefore);
  });
});

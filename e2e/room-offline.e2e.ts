/**
 * An encrypted discussion offline: a device that had it open reads it after a reload without the network (its title,
 * the names and the texts opened with the keys it holds, still labelled end-to-end encrypted), a text typed meanwhile
 * waits and goes once the network is back, and sign-out leaves nothing of the room on the device.
 */
import { SEALED_TEXT } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import {
  createDiscussion,
  type Device,
  logOut,
  messageBy,
  messageList,
  newDevice,
  registerViaApi,
  sendMessage,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";

const app = useStartedApp();

describe("an encrypted discussion offline", () => {
  it("reads what it had after a reload without the network, sends what was typed once back, and forgets the room at sign-out", async () => {
    const [a, b] = (await Promise.all([0, 1].map(() => newDevice(app.browser, app.server.url)))) as [Device, Device];
    await registerViaApi(a, app.server.url, "Ada Offline", uniqueEmail("ada"));
    await registerViaApi(b, app.server.url, "Bo Online", uniqueEmail("bo"));
    await Promise.all([a.page.goto("/dashboard"), b.page.goto("/dashboard")]);
    await a.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    await visible(a.page.getByLabel("Message", { exact: true }), 30_000);

    const share = await createDiscussion(a.page, "Tunnel talk", "Ada");
    const link = (await (await visible(share.getByText(/\/discussions\/join\//), 30_000)).textContent()) ?? "";
    await share.getByRole("button", { name: "Done" }).click();
    await b.page.goto(link);
    await b.page.getByLabel("Your name in this discussion").fill("Bo");
    await b.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("heading", { name: "Tunnel talk" }), 30_000);
    await sendMessage(b.page, "see you at the other end");
    await visible(messageBy(a.page, "Bo", "see you at the other end"), 30_000);
    // The network goes and the page is loaded again: the room opens with what this device had (and the share panel
    // opened at its creation does not open again).
    await a.context.setOffline(true);
    await a.page.reload();
    await visible(a.page.getByRole("heading", { name: "Tunnel talk" }), 30_000);
    await visible(messageBy(a.page, "Bo", "see you at the other end"), 30_000);
    await visible(a.page.getByRole("main").getByRole("link", { name: SEALED_TEXT.endToEnd, exact: true }));
    expect(await a.page.getByRole("dialog").count()).toBe(0);
    await sendMessage(a.page, "typed in the tunnel");
    await visible(messageList(a.page).getByRole("listitem").filter({ hasText: "typed in the tunnel" }));

    // Back online: it goes, once, sealed, and Bo reads it.
    await a.context.setOffline(false);
    await visible(messageBy(b.page, "Ada", "typed in the tunnel"), 30_000);
    expect(await messageList(b.page).getByText("typed in the tunnel").count()).toBe(1);

    // Sign-out leaves nothing of the room's state on the device.
    const roomId = new URL(a.page.url()).pathname.split("/").pop() ?? "";
    const kept = () =>
      a.page.evaluate(
        (id) => Object.entries(localStorage).flatMap(([k, v]) => (v.includes(id) || k.includes("offline-cache") ? [k] : [])),
        roomId,
      );
    expect(await kept()).not.toEqual([]);
    await logOut(a.page);
    await expect.poll(kept).toEqual([]);
    await Promise.all([a.context.close(), b.context.close()]);
  });
});

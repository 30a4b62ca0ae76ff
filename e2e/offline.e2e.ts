/**
 * Offline, honestly, in real Chromium with the service worker in control: a reload without the network shows the
 * messages this device had and the outbox, with the offline banner (not a spinner, not "Daysync is not reachable");
 * back online the waiting message goes; what has expired since is not shown; sign-out leaves nothing behind.
 */
import { API, type DayMessagesResponse, type DaysResponse, TEXT } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { messageList, newDevice, registerViaApi, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";

const app = useStartedApp();
const OFFLINE_BANNER = "You’re offline — showing what this device had; messages will be sent when the connection is back";

describe("offline", () => {
  it("opens with what this device had and the outbox, sends the waiting message once back, and forgets it all at sign-out", async () => {
    const { context, page } = await newDevice(app.browser, app.server.url);
    await registerViaApi({ context, page }, app.server.url, "Olive Offline", uniqueEmail("offline"));
    await page.goto("/dashboard");
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    const messages = messageList(page);
    await sendMessage(page, "kept for the road");
    await visible(messages.getByRole("listitem").filter({ hasText: "kept for the road" }).getByText("Sent", { exact: true }));

    // The network goes: a message typed now waits in the outbox.
    await context.setOffline(true);
    await visible(page.getByText(OFFLINE_BANNER));
    await sendMessage(page, "typed in the tunnel");
    await visible(messages.getByRole("listitem").filter({ hasText: "typed in the tunnel" }));

    // Reloaded without the network: what this device had, the waiting message, and the offline state.
    await page.reload();
    await visible(messages.getByText("kept for the road"));
    await visible(
      messages.getByRole("listitem").filter({ hasText: "typed in the tunnel" }).getByText("Pending — waiting for the connection"),
    );
    await visible(page.getByText(`${OFFLINE_BANNER} (1 waiting).`));
    expect(await page.getByRole("heading", { name: "Daysync is not reachable" }).count()).toBe(0);

    // Back online: it is sent, once, and the banner goes.
    await context.setOffline(false);
    await visible(messages.getByRole("listitem").filter({ hasText: "typed in the tunnel" }).getByText("Sent", { exact: true }), 15_000);
    await page.getByText(OFFLINE_BANNER).waitFor({ state: "detached" });
    const days = (await (await context.request.get(`${app.server.url}${API.days}`)).json()) as DaysResponse;
    const dayId = days.days[0]?.id ?? "";
    const stored = (await (await context.request.get(`${app.server.url}${API.dayMessages(dayId)}`)).json()) as DayMessagesResponse;
    expect(stored.messages.map((m) => m.content)).toEqual(["kept for the road", "typed in the tunnel"]);

    // Offline again, 20 minutes later on this device's clock: a Free plan keeps messages 15 minutes, so the kept
    // copy shows the day without them.
    await context.setOffline(true);
    await page.clock.setFixedTime(Date.now() + 20 * 60_000);
    await page.goto(`/dashboard/days/${dayId}`);
    await visible(page.getByText(TEXT.noMessages));
    expect(await page.getByText("kept for the road").count()).toBe(0);

    // Sign-out leaves nothing of the account on this device.
    const kept = () => page.evaluate(() => Object.keys(localStorage).filter((k) => /offline-cache|signed-in-user/.test(k)));
    expect(await kept()).toHaveLength(2);
    await context.setOffline(false);
    await page.getByRole("button", { name: TEXT.logout }).click();
    await page.waitForURL(`${app.server.url}/`);
    await expect.poll(kept).toEqual([]);
    await context.close();
  });
});

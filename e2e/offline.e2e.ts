import { API, type DayMessagesResponse, type DaysResponse, SEALED_VALUE_PATTERN, TEXT, type User } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { logOut, messageList, newDevice, registerViaApi, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount } from "./support/node-device.ts";

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
    // Sent once each, sealed on this device: the server keeps no word of them.
    expect(stored.messages).toHaveLength(2);
    for (const message of stored.messages) expect(message.content).toMatch(SEALED_VALUE_PATTERN);

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
    await logOut(page);
    await expect.poll(kept).toEqual([]);
    await context.close();
  });

  it("shows what the server has when this device's copy is older than the position it resumes from", async () => {
    // The other device holds the account's key and approves this one, so each reads what the other seals.
    const { phone: elsewhere, laptop } = await keyedAccount(app.browser, app.server.url, "Rita Resume", uniqueEmail("resume"));
    const { context, page } = laptop;
    const { user } = (await (await context.request.get(`${app.server.url}${API.me}`)).json()) as { user: User };
    await page.goto("/dashboard");
    await elsewhere.approveByCheckCode(page);
    const messages = messageList(page);
    await sendMessage(page, "in the copy");
    const sent = messages.getByRole("listitem").filter({ hasText: "in the copy" });
    await visible(sent.getByText("Sent", { exact: true }));
    // The copy keeps the message as the server has it, sealed: found by its id.
    const sentId = (await sent.getAttribute("id"))?.replace("message-", "") ?? "";
    const copyKey = `daysync:offline-cache:${user.id}`;
    await expect
      .poll(() => page.evaluate(([key, id]) => localStorage.getItem(key)?.includes(id) ?? false, [copyKey, sentId] as const))
      .toBe(true);
    const olderCopy = await page.evaluate((key) => localStorage.getItem(key) ?? "", copyKey);

    // Another device sends; this page applies it and saves its position at once, its copy a moment later.
    await elsewhere.sendSealed("sent from elsewhere");
    await visible(messages.getByText("sent from elsewhere"));
    // The page goes in between: the copy it leaves is the older one, written just now.
    await page.close();
    const again = await context.newPage();
    // A file of the same origin, so that the app does not start before the copy is put back.
    await again.goto(`${app.server.url}/favicon.svg`);
    await again.evaluate(
      ([key, copy]) => {
        const stored = JSON.parse(copy) as { entries: Array<{ updatedAt: number }> };
        for (const entry of stored.entries) entry.updatedAt = Date.now();
        localStorage.setItem(key, JSON.stringify(stored));
      },
      [copyKey, olderCopy] as const,
    );
    await again.goto(`${app.server.url}/dashboard`);
    await visible(messageList(again).getByText("sent from elsewhere"));
    await visible(messageList(again).getByText("in the copy"));
    await context.close();
  });
});

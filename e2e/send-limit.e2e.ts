import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { messageList, newDevice, nothingPending, registerViaApi, sendMessage, uniqueEmail, visible } from "./support/daysync.ts";

// Two messages per 4 s, so a third typed at once must wait.
const app = useStartedApp({ SEND_RATE_LIMIT_MAX: "2", SEND_RATE_LIMIT_WINDOW_MS: "4000" });

describe("the send limit, as a person meets it", () => {
  it("says why a message waits when the server asks to slow down, then sends it by itself", async () => {
    const device = await newDevice(app.browser, app.server.url);
    await registerViaApi(device, app.server.url, "Quick Typist", uniqueEmail("typist"));
    const { page } = device;
    await page.goto("/dashboard");
    for (const text of ["one", "two", "three"]) await sendMessage(page, text);

    const waiting = messageList(page).locator("[data-pending]").filter({ hasText: "three" });
    await visible(waiting.getByText(/^Too many messages\. Try again in \d+ seconds\.$/));
    // Retried by the outbox once the window has passed: no message lost, none left pending.
    await nothingPending(page, 20_000);
    for (const text of ["one", "two", "three"]) await visible(messageList(page).getByText(text, { exact: true }));
    expect(await page.getByText(/Not sent/).count()).toBe(0);
    await device.context.close();
  });
});

/** Everyday edges in real Chromium: an older day's empty state, toasts below the top bar, Logout seen by the other devices. */
import { randomUUID } from "node:crypto";
import { API, formatDisplayDate, formatStoredDate, TEXT } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { logOut, newDevice, registerViaApi, signInViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { ageMessagesOf, moveDayTo } from "./support/server-data.ts";

// An owner's contact email, so the top bar has its Contact Us link (the toasts must leave it clickable).
const app = useStartedApp({ CONTACT_EMAIL: "owner@home.example" });

describe("an older day", () => {
  it("says new messages go to today and opens today", async () => {
    const device = await newDevice(app.browser, app.server.url);
    const email = uniqueEmail("older");
    await registerViaApi(device, app.server.url, "Oscar Older", email);
    const res = await device.context.request.post(`${app.server.url}${API.messages}`, {
      data: { id: randomUUID(), content: "from yesterday", date: formatStoredDate(new Date()), time: "9:00 AM" },
    });
    expect(res.status()).toBe(201);
    const { day } = (await res.json()) as { day: { id: string } };
    // A day ago, and its message has expired since: the day stays, empty.
    const yesterday = formatStoredDate(new Date(Date.now() - 24 * 3600_000));
    moveDayTo(app.server.dataDir, day.id, yesterday);
    ageMessagesOf(app.server.dataDir, email, 24 * 3600_000);

    const { page } = device;
    await page.goto(`/dashboard/days/${day.id}`);
    await visible(page.getByRole("heading", { level: 1, name: formatDisplayDate(yesterday) }));
    await visible(page.getByText(TEXT.noMessages));
    await visible(page.getByText("New messages go to today."));
    expect(await page.getByText("Type below to keep a note for this day", { exact: false }).count()).toBe(0);
    await page.getByRole("link", { name: "Open today" }).click();
    await page.waitForURL(`${app.server.url}/dashboard`);
    await visible(page.getByRole("heading", { level: 1, name: formatDisplayDate(formatStoredDate(new Date())) }));
    // Today's own empty state still invites a note.
    await visible(page.getByText("Type below to keep a note for this day", { exact: false }));
    await device.context.close();
  });
});

describe("toasts", () => {
  it.each([1280, 390])(
    "sit below the top bar at %i px: its Contact Us link, bell and theme toggle stay clickable while one shows",
    async (width) => {
      const email = uniqueEmail("toast");
      const laptop = await newDevice(app.browser, app.server.url, { width, height: 844 });
      await registerViaApi(laptop, app.server.url, "Tess Toast", email);
      const { page } = laptop;
      await page.goto("/dashboard");
      await visible(page.getByText(TEXT.noMessages));
      await page.waitForTimeout(500);

      // Another device signs in: this one shows a toast, top-right, for 5 s.
      const phone = await newDevice(app.browser, app.server.url);
      await signInViaApi(phone, app.server.url, email);
      const toast = await visible(page.locator(".Toastify__toast").filter({ hasText: "New device signed in" }));
      const topBar = await page.locator(".topbar").boundingBox();
      const box = await toast.boundingBox();
      expect(topBar && box && box.y >= topBar.y + topBar.height).toBe(true);
      expect(box && box.x + box.width).toBeGreaterThan(width - 40);

      const controls = [
        page.getByRole("link", { name: TEXT.contactUs }),
        page.getByRole("button", { name: /notifications/i }),
        page.getByRole("button", { name: "Dark theme" }),
      ];
      for (const control of controls) {
        const hit = await control.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return top !== null && el.contains(top);
        });
        expect(hit).toBe(true);
      }
      const toggle = page.getByRole("button", { name: "Dark theme" });
      const before = await toggle.getAttribute("aria-pressed");
      await toggle.click({ timeout: 2_000 });
      expect(await toggle.getAttribute("aria-pressed")).not.toBe(before);
      expect(await toast.isVisible()).toBe(true);
      await laptop.context.close();
      await phone.context.close();
    },
  );
});

describe("a device that logs itself out", () => {
  it("leaves the other device's open Devices list at once, as one signed out from the list does", async () => {
    const email = uniqueEmail("leaver");
    const laptop = await newDevice(app.browser, app.server.url);
    await registerViaApi(laptop, app.server.url, "Lou Leaver", email);
    const phone = await newDevice(app.browser, app.server.url);
    await signInViaApi(phone, app.server.url, email);
    await phone.page.goto("/dashboard");
    await visible(phone.page.getByText(TEXT.noMessages));

    await laptop.page.goto("/dashboard/devices");
    const rows = laptop.page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);

    // The phone made the account's key (it opened the app first), so Logout warns first.
    await logOut(phone.page);
    await expect.poll(() => rows.count(), { timeout: 5_000 }).toBe(1);
    expect(await rows.getByText("This device").count()).toBe(1);
    await laptop.context.close();
    await phone.context.close();
  });
});

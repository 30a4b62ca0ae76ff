/**
 * Payments (issue 30) in real Chromium against the local fake of Stripe (apps/server/src/testing/stripe-fake.ts),
 * whose Checkout page has a Pay button: Upgrade → Checkout → back on the Plan page with Premium; a member pays a
 * discussion's extension and the other member's open countdown moves.
 */
import { DISCUSSION_ROUTES, DISCUSSIONS_API, PAYMENTS_API, responseSchemas } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StripeFake } from "../apps/server/src/testing/stripe-fake.ts";
import { launchBrowser } from "./support/browser.ts";
import { newDevice, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

let fake: StripeFake;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  fake = await StripeFake.start();
  [server, browser] = await Promise.all([startServer(fake.env()), launchBrowser()]);
  fake.webhookUrl = server.url + PAYMENTS_API.webhook;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe("payments through Stripe", () => {
  it("Upgrade to Premium: Checkout, Pay, and back on the Plan page on Premium", async () => {
    const device = await newDevice(browser, server.url);
    await registerViaApi(device, server.url, "Uma Upgrade", uniqueEmail("upgrade"));
    const { page } = device;
    await page.goto("/dashboard/plan");
    await page.getByRole("button", { name: "Upgrade to Premium" }).click();
    await page.waitForURL(`${fake.url}/pay/**`);
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(`${server.url}/dashboard/plan`);
    await visible(page.getByRole("heading", { level: 1, name: "Premium plan" }));
    await visible(page.getByRole("status").getByText("Payment received"));
    await visible(page.getByRole("button", { name: "Manage subscription" }));
    await device.context.close();
  });

  it("a member pays an extension and the other member's countdown moves", async () => {
    const [a, b] = await Promise.all([newDevice(browser, server.url), newDevice(browser, server.url)]);
    await registerViaApi(a, server.url, "Ann Payer", uniqueEmail("payer"));
    await registerViaApi(b, server.url, "Bea Watcher", uniqueEmail("watcher"));
    const created = await a.context.request.post(`${server.url}${DISCUSSIONS_API.list}`, {
      data: { title: "Road trip", display_name: "Ann" },
    });
    const { discussion } = responseSchemas.discussion.parse(await created.json());
    const joined = await b.context.request.post(`${server.url}${DISCUSSIONS_API.join(discussion.public_id)}`, {
      data: { display_name: "Bea" },
    });
    expect(joined.ok()).toBe(true);
    const path = DISCUSSION_ROUTES.one(discussion.id);
    await Promise.all([a.page.goto(path), b.page.goto(path)]);
    const countdown = b.page.locator(".discussion-countdown");
    await visible(countdown.getByText(/Ends in 6 d/));

    await a.page.getByRole("button", { name: "Extend" }).click();
    await a.page.getByRole("dialog", { name: "Extend discussion" }).getByRole("button", { name: "Pay $0.99 for 7 days" }).click();
    await a.page.waitForURL(`${fake.url}/pay/**`);
    await a.page.getByRole("button", { name: "Pay" }).click();
    await a.page.waitForURL(`${server.url}${path}`);
    await visible(a.page.getByRole("status").getByText("Payment received"));

    await visible(countdown.getByText(/Ends in 13 d/));
    await Promise.all([a.context.close(), b.context.close()]);
  });
});

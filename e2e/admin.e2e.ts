/** The admin page in a real browser: only an admin sees it, and a Premium grant reaches the person's open dashboard live. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults } from "axe-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, hidden, newDevice, registerViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

describe("admin page", () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: Device;
  let person: Device;
  const adminEmail = uniqueEmail("admin");
  const personEmail = uniqueEmail("pat");
  const until = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    [admin, person] = await Promise.all([newDevice(browser, server.url), newDevice(browser, server.url)]);
    // The first account of a new installation is its admin.
    await registerViaApi(admin, server.url, "Ada Admin", adminEmail);
    await registerViaApi(person, server.url, "Pat Person", personEmail);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("is not there for anyone but an admin: no Admin entry, and /admin is the not-found screen", async () => {
    await person.page.goto("/admin");
    await visible(person.page.getByRole("heading", { name: "Unexpected Application Error!" }));
    await visible(person.page.getByText("404 Not Found"));
    await person.page.goto("/dashboard");
    await visible(person.page.getByText("Free plan"));
    expect(await person.page.getByRole("link", { name: "Admin", exact: true }).count()).toBe(0);
  });

  it("lets an admin find an account and grant Premium, which the person's open dashboard shows at once; the audit log records it", async () => {
    await admin.page.goto("/dashboard");
    await admin.page.getByRole("link", { name: "Admin", exact: true }).click();
    await visible(admin.page.getByRole("heading", { name: "Admin", level: 1 }));
    const accounts = admin.page.getByRole("table", { name: "Accounts" });
    await visible(accounts.getByRole("cell", { name: adminEmail, exact: true }));
    await visible(accounts.getByRole("cell", { name: personEmail, exact: true }));

    await admin.page.getByRole("searchbox", { name: "Search by name or email" }).fill("pat per");
    await hidden(accounts.getByRole("cell", { name: adminEmail, exact: true }));
    await visible(accounts.getByRole("cell", { name: personEmail, exact: true }));

    await admin.page.getByRole("button", { name: `Grant Premium: ${personEmail}` }).click();
    const dialog = admin.page.getByRole("dialog", { name: "Grant Premium" });
    await dialog.getByLabel("Premium ends on").fill(until);
    await dialog.getByRole("button", { name: "Grant Premium" }).press("Enter");
    await hidden(dialog);
    await visible(accounts.getByRole("row").filter({ hasText: personEmail }).getByText("Premium plan"));

    // No reload on the person's side: the change came over the live connection.
    await visible(person.page.locator(".user-plan").getByText("Premium plan", { exact: true }));

    const audit = admin.page.getByRole("table", { name: "Audit log" });
    const row = audit.getByRole("row").filter({ hasText: "premium.granted" });
    await visible(row.getByRole("cell", { name: personEmail, exact: true }));
    await visible(row.getByRole("cell", { name: `until ${until}`, exact: true }));
    await visible(row.getByRole("cell", { name: adminEmail, exact: true }));

    // Every control named, tables and chart readable: no serious or critical axe finding on the page as it is now.
    await admin.page.evaluate(axeSource);
    const results = await admin.page.evaluate(() =>
      (window as unknown as { axe: { run(d: Document): Promise<AxeResults> } }).axe.run(document),
    );
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
    expect(serious).toEqual([]);
  });
});

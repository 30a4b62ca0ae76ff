import { randomBytes } from "node:crypto";
import { TEXT, UPLOAD_TEXT } from "@daysync/shared";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twoReadingDevices } from "./support/approval.ts";
import { launchBrowser } from "./support/browser.ts";
import { chooseFiles, type Device, hidden, messageList, recordStatusTexts, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

const MiB = 1024 * 1024;
const file = (name: string, bytes: number, mimeType = "application/octet-stream") => ({ name, mimeType, buffer: randomBytes(bytes) });
const staged = (page: Page) => page.getByRole("region", { name: "Files to send" });
const rowOf = (page: Page, name: string) => staged(page).getByRole("listitem").filter({ hasText: name });

describe("several files in few steps", () => {
  let server: RunningServer;
  let browser: Browser;
  let laptop: Device;
  let phone: Device;

  beforeAll(async () => {
    // A small per-file limit, to be refused at pick time.
    [server, browser] = await Promise.all([startServer({ FREE_MAX_FILE_BYTES: String(2 * MiB) }), launchBrowser()]);
    [laptop, phone] = await twoReadingDevices(browser, server.url, { name: "Mia Multi", email: uniqueEmail("multi") });
    await Promise.all([laptop.page.goto("/dashboard"), phone.page.goto("/dashboard")]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("picks three files at once beside the message box; one Send and all three reach the other device", async () => {
    await chooseFiles(laptop.page, [file("one.bin", 300 * 1024), file("two.bin", 1 * MiB), file("three.txt", 2000, "text/plain")]);
    for (const name of ["one.bin", "two.bin", "three.txt"]) await visible(rowOf(laptop.page, name).getByText("Ready to send"));
    await laptop.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    for (const name of ["one.bin", "two.bin", "three.txt"]) await visible(messageList(phone.page).getByText(name), 20_000);
    await hidden(staged(laptop.page), 15_000);
  });

  it("stages a file dropped on the message area and a file pasted into the message box, each in its own row", async () => {
    await messageList(laptop.page).evaluate((list) => {
      const data = new DataTransfer();
      data.items.add(new File(["dropped on the day"], "dropped.txt", { type: "text/plain" }));
      list.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await visible(rowOf(laptop.page, "dropped.txt").getByText("Ready to send"));

    const box = laptop.page.getByLabel("Message", { exact: true });
    await box.focus();
    await box.evaluate((input) => {
      const data = new DataTransfer();
      const png = Uint8Array.from(
        atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
        (c) => c.charCodeAt(0),
      );
      data.items.add(new File([png], "pasted.png", { type: "image/png" }));
      input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await visible(rowOf(laptop.page, "pasted.png").getByText("Ready to send"));
    // The file went to the list, not into the text.
    expect(await box.inputValue()).toBe("");

    // Enter in the empty message box sends the staged files, without asking for text.
    await box.press("Enter");
    await visible(messageList(phone.page).getByText("dropped.txt"), 20_000);
    await visible(phone.page.getByRole("button", { name: "Open pasted.png full size" }), 20_000);
    await hidden(staged(laptop.page), 15_000);
    expect(await box.getAttribute("aria-invalid")).toBeNull();
  });

  it("refuses a file over the plan's limit when it is picked, saying the limit, and stages the others", async () => {
    await chooseFiles(laptop.page, [file("small.bin", 1000), file("huge.bin", 3 * MiB)]);
    await visible(laptop.page.getByRole("alert").getByText("huge.bin is 3 MiB; your plan allows files up to 2 MiB."));
    await visible(rowOf(laptop.page, "small.bin"));
    expect(await rowOf(laptop.page, "huge.bin").count()).toBe(0);
    await laptop.page.getByRole("button", { name: "Dismiss" }).click();
    await hidden(laptop.page.getByRole("alert").filter({ hasText: "huge.bin" }));
    await laptop.page.getByRole("button", { name: "Cancel small.bin" }).click();
    await hidden(staged(laptop.page));
  });

  it("cancels one of two running uploads: that row says 'Upload cancelled', never 'File upload failed!', and the other arrives", async () => {
    const texts = await recordStatusTexts(laptop.page);
    const held: Route[] = [];
    let holding = true;
    await laptop.page.route(/\/api\/uploads\/[a-f0-9]+$/, async (route) => {
      if (holding && route.request().method() === "PATCH") held.push(route);
      else await route.continue();
    });
    await chooseFiles(laptop.page, [file("keep.bin", 512 * 1024), file("drop-me.bin", 512 * 1024)]);
    await laptop.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await visible(rowOf(laptop.page, "keep.bin").getByText(/^Uploading selected file 0\.00%$/));
    await visible(rowOf(laptop.page, "drop-me.bin").getByText(/^Uploading selected file 0\.00%$/));

    await laptop.page.getByRole("button", { name: "Cancel drop-me.bin" }).click();
    const status = rowOf(laptop.page, "drop-me.bin").getByRole("status");
    await visible(status.getByText(UPLOAD_TEXT.cancelled));
    holding = false;
    for (const route of held.splice(0)) await route.continue().catch(() => undefined);

    await visible(messageList(phone.page).getByText("keep.bin"), 20_000);
    // The cancelled row stays to say so, in neutral colours; it never turned into a failure.
    await visible(status.getByText(UPLOAD_TEXT.cancelled));
    const colours = await status.evaluate((el) => {
      const probe = document.createElement("span");
      probe.style.color = "var(--danger)";
      el.append(probe);
      const danger = getComputedStyle(probe).color;
      probe.remove();
      return { text: getComputedStyle(el).color, danger };
    });
    expect(colours.text).not.toBe(colours.danger);
    expect(await texts()).not.toContain(UPLOAD_TEXT.failed);
    expect(await laptop.page.getByText(UPLOAD_TEXT.failed).count()).toBe(0);
    await phone.page.reload();
    await visible(messageList(phone.page).getByText("keep.bin"));
    expect(await messageList(phone.page).getByText("drop-me.bin").count()).toBe(0);
    await laptop.page.unroute(/\/api\/uploads\/[a-f0-9]+$/);
  });

  it("goes on uploading while another page of the app is open, and shows the row again on return", async () => {
    const held: Route[] = [];
    let holding = true;
    await laptop.page.route(/\/api\/uploads\/[a-f0-9]+$/, async (route) => {
      if (holding && route.request().method() === "PATCH") held.push(route);
      else await route.continue();
    });
    await chooseFiles(laptop.page, [file("while-away.bin", 256 * 1024)]);
    await laptop.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await visible(rowOf(laptop.page, "while-away.bin").getByText(/^Uploading selected file 0\.00%$/));

    await laptop.page.getByRole("link", { name: "Devices", exact: true }).click();
    await hidden(laptop.page.getByLabel("Message", { exact: true }));
    await laptop.page.goBack();
    await visible(rowOf(laptop.page, "while-away.bin").getByText(/^Uploading selected file 0\.00%$/));

    holding = false;
    for (const route of held.splice(0)) await route.continue().catch(() => undefined);
    await visible(messageList(phone.page).getByText("while-away.bin"), 20_000);
    await hidden(rowOf(laptop.page, "while-away.bin"), 15_000);
    await laptop.page.unroute(/\/api\/uploads\/[a-f0-9]+$/);
  });
});

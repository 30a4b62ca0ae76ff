/**
 * Issue 46: /send for phones without the app (an Apple Shortcut or a share menu opens it with the text in the
 * fragment, or a file chosen on the page) and /latest for a home-screen bookmark, in real Chromium against the real
 * server.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { APP_ROUTES, SEALED_TEXT, TEXT } from "@daysync/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import { audit } from "./support/axe.ts";
import { type Device, newDevice, PASSWORD, uniqueEmail, visible } from "./support/daysync.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { storedMessageRow } from "./support/server-data.ts";

const app = useStartedApp();

/** The account's first device, holding its key (a laptop running the CLI, say): it reads what the pages send. */
let laptop: NodeDevice;
/** The phone's browser, signed in by password and approved by the laptop. */
let phone: Device;
let email: string;

const STEP_MS = 30_000;

/** The ids of the account's messages whose text, opened by the laptop, is `text`. */
async function idsWithText(text: string): Promise<string[]> {
  const ids: string[] = [];
  for (const id of await laptop.messageIds()) {
    const { opened } = await laptop.open(id);
    if (opened.state === "opened" && opened.text === text) ids.push(id);
  }
  return ids;
}

async function waitForOneWithText(text: string): Promise<string> {
  await expect.poll(() => idsWithText(text), { timeout: STEP_MS, interval: 500 }).toHaveLength(1);
  const [id] = await idsWithText(text);
  return id ?? "";
}

// The whole status says it: "Sent" alone, not the offline banner's "…will be sent when the connection is back".
const statusSaying = (page: Page, text: string) =>
  page.getByRole("status").filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) });

beforeAll(async () => {
  email = uniqueEmail("send");
  ({ phone: laptop, laptop: phone } = await keyedAccount(app.browser, app.server.url, "Sender", email));
  await phone.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.server.url });
  await phone.page.goto(APP_ROUTES.dashboard);
  await phone.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).waitFor({ timeout: STEP_MS });
  await laptop.approveByCheckCode(phone.page);
  await phone.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).waitFor({ state: "detached", timeout: STEP_MS });
});

afterAll(async () => {
  await laptop?.dispose();
  await phone?.context.close();
});

describe("/send", () => {
  it("sends the fragment's text sealed, says Sent, and leaves no fragment in the address bar", async () => {
    const text = "From the share sheet: café & 100% #tag";
    const today = await phone.context.newPage();
    await today.goto(APP_ROUTES.dashboard);
    await today.getByLabel("Message", { exact: true }).waitFor({ timeout: STEP_MS });

    await phone.page.goto(`${APP_ROUTES.send}#text=${encodeURIComponent(text)}`);
    await visible(statusSaying(phone.page, "Sent"), STEP_MS);
    expect(new URL(phone.page.url()).hash).toBe("");
    await visible(phone.page.getByLabel("Text sent").getByText(text));
    expect(await audit(phone.page)).toEqual([]);

    // Another page of the account shows it live, and the laptop opens it.
    await visible(today.getByRole("list", { name: "Messages" }).getByText(text), STEP_MS);
    await today.close();
    const id = await waitForOneWithText(text);
    const row = storedMessageRow(app.server.dataDir, id);
    expect(row).toBeDefined();
    expect(row?.content).not.toContain("café");
    expect(row?.content).not.toContain(text);
  });

  it("sends a shared link as its text", async () => {
    await phone.page.goto(`${APP_ROUTES.send}#url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1`);
    await visible(statusSaying(phone.page, "Sent"), STEP_MS);
    expect(new URL(phone.page.url()).hash).toBe("");
    await visible(phone.page.getByLabel("Text sent").getByText("https://example.com/a?b=1"), STEP_MS);
    await waitForOneWithText("https://example.com/a?b=1");
  });

  it("sends another by hand", async () => {
    await phone.page.getByLabel("Send another").fill("typed on the send page");
    await phone.page.getByRole("button", { name: "Send", exact: true }).click();
    await visible(phone.page.getByLabel("Text sent").getByText("typed on the send page"), STEP_MS);
    await visible(statusSaying(phone.page, "Sent"), STEP_MS);
    await waitForOneWithText("typed on the send page");
  });

  it("offline, says so and sends once the connection is back", async () => {
    await phone.context.setOffline(true);
    try {
      await phone.page.getByLabel("Send another").fill("typed while offline");
      await phone.page.getByRole("button", { name: "Send", exact: true }).click();
      await visible(statusSaying(phone.page, "You are offline: it will be sent when the connection is back."), STEP_MS);
    } finally {
      await phone.context.setOffline(false);
    }
    await visible(statusSaying(phone.page, "Sent"), STEP_MS);
    await waitForOneWithText("typed while offline");
  });

  it("sends a 10 MB file chosen on the page, sealed, and says Sent", async () => {
    const name = "holiday-notes.bin";
    const data = randomBytes(10 * 1024 * 1024);
    data.write("DAYSYNC-SEND-PAGE-MARKER", 5 * 1024 * 1024);
    await phone.page.goto(APP_ROUTES.send);
    await phone.page.getByLabel("Or send a file").setInputFiles({ name, mimeType: "application/octet-stream", buffer: data });
    await visible(phone.page.getByRole("list", { name: "Files sent" }).getByText(name), STEP_MS);
    await visible(statusSaying(phone.page, "Sent"), 2 * STEP_MS);
    expect(await audit(phone.page)).toEqual([]);

    const id = await waitForOneWithText(name);
    const { stored, bytes } = await laptop.openFile(id);
    expect(bytes.equals(data)).toBe(true);
    expect(storedMessageRow(app.server.dataDir, id)?.filename).not.toContain("holiday");
    const atRest = readFileSync(path.join(app.server.dataDir, "files", stored.file_url.split("/").pop() ?? ""));
    expect(atRest.includes("DAYSYNC-SEND-PAGE-MARKER")).toBe(false);
  });

  it("in a browser not paired yet, keeps the share, and sends it once after sign-in and approval", async () => {
    const text = "shared before this browser was paired";
    const fresh = await newDevice(app.browser, app.server.url);
    try {
      await fresh.page.goto(`${APP_ROUTES.send}#text=${encodeURIComponent(text)}`);
      await visible(fresh.page.getByText("This browser is not paired with your Daysync account yet."), STEP_MS);
      expect(new URL(fresh.page.url()).hash).toBe("");
      expect(await audit(fresh.page)).toEqual([]);
      await fresh.page.getByRole("link", { name: "Sign in" }).click();
      await fresh.page.locator('form button[type="submit"]:enabled').waitFor();
      await fresh.page.getByLabel("Email").fill(email);
      await fresh.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await fresh.page.getByRole("button", { name: TEXT.signIn, exact: true }).click();
      await fresh.page.waitForURL((url) => url.pathname === APP_ROUTES.send, { timeout: STEP_MS });
      // Signed in by password: locked until another device approves it, and it says so.
      await visible(statusSaying(fresh.page, "Waiting for one of your other devices to approve this one"), STEP_MS);
      await laptop.approveByCheckCode(fresh.page);
      await visible(statusSaying(fresh.page, "Sent"), STEP_MS);
      await waitForOneWithText(text);
      // A reload sends nothing again: the share was handed to the outbox and cleared.
      await fresh.page.reload();
      await visible(fresh.page.getByRole("heading", { name: "Send to your days" }), STEP_MS);
      await fresh.page.waitForTimeout(1_000);
      expect(await idsWithText(text)).toHaveLength(1);
    } finally {
      await fresh.context.close();
    }
  });
});

describe("/latest", () => {
  it("shows the newest message with one Copy button, and a newer one from another device replaces it live", async () => {
    await laptop.sendSealed("the newest for now");
    await phone.page.goto(APP_ROUTES.latest);
    const latest = phone.page.getByRole("article", { name: "Newest message" });
    await visible(latest.getByText("the newest for now"), STEP_MS);
    await expect.poll(() => latest.getByRole("button").count()).toBe(1);
    expect(await audit(phone.page)).toEqual([]);
    await latest.getByRole("button", { name: TEXT.copy }).click();
    await visible(latest.getByText(TEXT.copied));
    expect(await phone.page.evaluate(() => navigator.clipboard.readText())).toBe("the newest for now");

    await laptop.sendSealed("newer, from the laptop");
    await visible(latest.getByText("newer, from the laptop"), STEP_MS);
    expect(await latest.getByText("the newest for now").count()).toBe(0);
  });
});

import { APP_ROUTES, SEALED_TEXT } from "@daysync/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, keyStateOf, logOut, signInViaApi, twoDevicesOfOneUser, uniqueEmail, visible } from "./support/daysync.ts";
import { type RunningServer, startServer } from "./support/server.ts";

/** What this browser keeps of the account in IndexedDB `daysync-keys`, as the page sees it. */
function storedKeys(page: Page) {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("daysync-keys");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    if (!db.objectStoreNames.contains("accounts")) return [];
    const records = await new Promise<Array<{ keyId: string; pair: CryptoKeyPair; epochs: Record<number, unknown> }>>((resolve, reject) => {
      const all = db.transaction("accounts").objectStore("accounts").getAll();
      all.onsuccess = () => resolve(all.result);
      all.onerror = () => reject(all.error);
    });
    db.close();
    return Promise.all(
      records.map(async (record) => ({
        keyId: record.keyId,
        epochs: Object.keys(record.epochs),
        privateExtractable: record.pair.privateKey.extractable,
        privateExport: await crypto.subtle.exportKey("pkcs8", record.pair.privateKey).then(
          () => "exported",
          () => "refused",
        ),
      })),
    );
  });
}

describe("device keys in the browser (decision 020)", () => {
  let server: RunningServer;
  let browser: Browser;
  let laptop: Device;
  let phone: Device;
  const accountEmail = uniqueEmail("keys");

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    [laptop, phone] = await twoDevicesOfOneUser(browser, server.url, { name: "Kim Keys", email: accountEmail });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the first device makes its key pair, keeps the private key non-extractable, and makes the account's first epoch", async () => {
    await laptop.page.goto(APP_ROUTES.dashboard);
    await expect.poll(async () => (await keyStateOf(laptop, server.url)).wraps.length, { timeout: 15_000 }).toBe(1);
    const state = await keyStateOf(laptop, server.url);
    expect(state.epoch).toBe(1);
    await expect.poll(async () => (await storedKeys(laptop.page))[0]?.epochs, { timeout: 10_000 }).toEqual(["1"]);
    const [stored] = await storedKeys(laptop.page);
    expect(stored).toMatchObject({ keyId: state.key_id, privateExtractable: false, privateExport: "refused" });
  });

  it("a device signed in by password gets its own key pair but not the key; Devices says which can read", async () => {
    await phone.page.goto(APP_ROUTES.dashboard);
    await expect.poll(async () => (await keyStateOf(phone, server.url)).key_id, { timeout: 15_000 }).not.toBeNull();
    const state = await keyStateOf(phone, server.url);
    expect(state.epoch).toBe(1);
    expect(state.wraps).toEqual([]);
    expect((await storedKeys(phone.page))[0]?.epochs).toEqual([]);

    await laptop.page.goto(APP_ROUTES.devices);
    const rows = laptop.page.getByRole("list").filter({ hasText: "This device" }).getByRole("listitem");
    await visible(rows.filter({ hasText: "This device" }).getByText("Can read your messages"));
    await visible(rows.filter({ hasNotText: "This device" }).getByText("Waiting for approval"));
  });

  it("a device whose stored key was cleared says so, and signing in again gives it a new key to be approved", async () => {
    await phone.page.goto(APP_ROUTES.dashboard);
    await visible(phone.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }), 15_000);
    const before = await keyStateOf(phone, server.url);
    // Away from the app's pages, so nothing holds the database open, the browser forgets what it kept.
    await phone.page.goto("/robots.txt");
    await phone.page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const deletion = indexedDB.deleteDatabase("daysync-keys");
          deletion.onsuccess = () => resolve();
          deletion.onerror = () => reject(deletion.error);
        }),
    );
    await phone.page.goto(APP_ROUTES.dashboard);
    await visible(phone.page.getByRole("heading", { name: SEALED_TEXT.lost }), 15_000);
    expect(await phone.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }).count()).toBe(0);

    await phone.page.getByRole("button", { name: "Sign out to sign in again" }).click();
    await phone.page.waitForURL((url) => url.pathname === "/");
    await signInViaApi(phone, server.url, accountEmail);
    await phone.page.goto(APP_ROUTES.dashboard);
    await visible(phone.page.getByRole("heading", { name: SEALED_TEXT.approveToSend }), 15_000);
    const after = await keyStateOf(phone, server.url);
    expect(after.key_id).not.toBeNull();
    expect(after.key_id).not.toBe(before.key_id);
    expect(await storedKeys(phone.page)).toEqual([expect.objectContaining({ keyId: after.key_id, epochs: [] })]);
  });

  it("logging out takes the device's keys with it", async () => {
    await laptop.page.goto(APP_ROUTES.dashboard);
    await logOut(laptop.page);
    await expect.poll(() => storedKeys(laptop.page), { timeout: 10_000 }).toEqual([]);
  });
});

/**
 * The service worker in an encrypted discussion (docs/protocol/encryption.md, "Encrypted discussions"), in real
 * Chromium: a room's push, which carries only sealed values, shows the discussion's title and "<name>: <text>" opened
 * by the worker with the room's keys (read from what the account's devices keep sealed), or the app's sentence when
 * it does not open; a room's image of several records shows its thumbnail, downloads through the worker's
 * `/sealed-files/` route under its real name with its bytes, and answers a Range with 206 and the right bytes.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { DISCUSSIONS_API, type NewMessagePush, responseSchemas, SEALED_TEXT, TEXT } from "@daysync/shared";
import { parseRoomLink, RECORD_SIZE } from "@daysync/shared/crypto";
import type { Worker } from "playwright-core";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";
import {
  chooseFiles,
  createDiscussion,
  type Device,
  messageBy,
  newDevice,
  registerViaApi,
  sendMessage,
  uniqueEmail,
  visible,
} from "./support/daysync.ts";
import { fetchRange } from "./support/fetch-range.ts";
import { readQrFromScreen } from "./support/qr.ts";

const app = useStartedApp();

/** A PNG of noise, 320×240: Chromium decodes it, and it does not compress, so it is several 64 KiB records long. */
const noisePng = () =>
  sharp(randomBytes(320 * 240 * 3), { raw: { width: 320, height: 240, channels: 3 } })
    .png()
    .toBuffer();

/** Dispatches a push to the worker as the push service would, and reads the notification it shows (title and body). */
function pushTo(worker: Worker, payload: NewMessagePush) {
  return worker.evaluate(async (data) => {
    // The worker's globals, which the DOM types of this file do not declare.
    const sw = self as unknown as {
      registration: ServiceWorkerRegistration;
      dispatchEvent(event: Event): boolean;
      PushEvent: new (type: string, init: { data: string }) => Event;
    };
    for (const n of await sw.registration.getNotifications()) n.close();
    sw.dispatchEvent(new sw.PushEvent("push", { data }));
    for (let i = 0; i < 100; i++) {
      const shown = await sw.registration.getNotifications();
      if (shown.length > 0) return shown.map((n) => ({ title: n.title, body: n.body }));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return [];
  }, JSON.stringify(payload));
}

describe("the service worker in an encrypted discussion", () => {
  const title = `Hike plans ${randomBytes(3).toString("hex")}`;
  const names = { a: "Anna", b: "Bert" };
  const text = "Meet at the trailhead at 7, bring water";
  const imageName = "summit – “view”.png";
  let image: Buffer;
  let a: Device;
  let b: Device;
  let roomId: string;

  beforeAll(async () => {
    image = await noisePng();
    [a, b] = await Promise.all([newDevice(app.browser, app.server.url), newDevice(app.browser, app.server.url)]);
    await registerViaApi(a, app.server.url, "Anna Account", uniqueEmail("room-sw-a"));
    await registerViaApi(b, app.server.url, "Bert Account", uniqueEmail("room-sw-b"));
    await Promise.all([a.page.goto("/dashboard"), b.page.goto("/dashboard")]);
    await visible(a.page.getByLabel("Message", { exact: true }), 30_000);

    const share = await createDiscussion(a.page, title, names.a);
    await visible(share.getByRole("img", { name: /QR code/ }), 30_000);
    const link = await readQrFromScreen(a.page);
    roomId = parseRoomLink(link).roomId;
    await share.getByRole("button", { name: "Done" }).click();

    await b.page.goto(link);
    await b.page.getByLabel("Your name in this discussion").fill(names.b);
    await b.page.getByRole("main").getByRole("button", { name: "Join" }).click();
    await visible(b.page.getByRole("heading", { name: title }), 30_000);
    // The worker registers once the page is idle, and then takes the page over (its route answers only such a page).
    await b.page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state);
    await b.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await visible(a.page.getByText("2 members"), 20_000);

    await sendMessage(a.page, text);
    await visible(messageBy(b.page, names.a, text), 20_000);
    await chooseFiles(a.page, [{ name: imageName, mimeType: "image/png", buffer: image }]);
    await a.page.getByRole("button", { name: TEXT.send, exact: true }).click();
    await visible(messageBy(b.page, names.a, imageName), 30_000);
  });

  it("shows a room's image as its thumbnail, downloads it through the worker under its name, and answers a Range", async () => {
    expect(image.length).toBeGreaterThan(3 * RECORD_SIZE);
    const row = messageBy(b.page, names.a, imageName);
    const thumbnail = row.getByRole("img", { name: imageName });
    await visible(thumbnail, 20_000);
    await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 }).toBe(320);

    const download = row.getByRole("link", { name: "Download" });
    const href = (await download.getAttribute("href")) ?? "";
    expect(href).toMatch(/^\/sealed-files\//);
    expect(new URL(href, app.server.url).searchParams.get("discussion")).toBe(roomId);
    expect(decodeURIComponent(href)).not.toContain("summit");
    const [saved] = await Promise.all([b.page.waitForEvent("download"), download.click()]);
    expect(saved.suggestedFilename()).toBe(imageName);
    expect(saved.url()).toContain("/sealed-files/");
    expect(readFileSync(await saved.path()).equals(image)).toBe(true);

    const start = RECORD_SIZE - 20;
    const end = 2 * RECORD_SIZE + 500;
    const part = await fetchRange(b.page, href, `bytes=${start}-${end}`);
    expect(part.status).toBe(206);
    expect(part.contentRange).toBe(`bytes ${start}-${end}/${image.length}`);
    expect(Buffer.from(part.bytes).equals(image.subarray(start, end + 1))).toBe(true);
  });

  it("shows a room's push opened by the worker: the title, and the sender's name with the text", async () => {
    await b.context.grantPermissions(["notifications"], { origin: app.server.url });
    const worker = b.context.serviceWorkers()[0] ?? (await b.context.waitForEvent("serviceworker"));
    const listed = await b.context.request.get(`${app.server.url}${DISCUSSIONS_API.messages(roomId)}`);
    const { messages } = responseSchemas.discussionMessages.parse(await listed.json());
    const sent = messages.find((m) => m.type === "text" && m.generation !== undefined);
    if (!sent) throw new Error("the text is not listed");
    // What the server pushes for it (push.service.ts `discussionPayloadOf`; room-push.test.ts checks the server's side).
    const payload: NewMessagePush = {
      kind: "message.created",
      title: "",
      body: "",
      day_id: roomId,
      discussion_id: roomId,
      message_id: sent.id,
      url: `/discussions/${roomId}`,
      room: {
        generation: sent.generation ?? 0,
        sender_key_id: sent.sender_key_id ?? "",
        preview: sent.preview ?? "",
        type: sent.type,
        date: sent.date,
        time: sent.time,
      },
    };
    // The worker shows no notification while the app is in view.
    await b.page.close();
    expect(await pushTo(worker, payload)).toEqual([{ title, body: `${names.a}: ${text}` }]);
    // A preview that does not open where it says it belongs says so, in the app's words; still the title.
    expect(await pushTo(worker, { ...payload, message_id: crypto.randomUUID() })).toEqual([{ title, body: SEALED_TEXT.undecryptable }]);
  });
});

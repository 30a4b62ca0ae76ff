/**
 * Files sealed on a device (docs/protocol/encryption.md, "File records"), as the browser reads them: the opened name and plain size, the
 * image opened in the page for its thumbnail, Download and players (audio, and a video played to its end) through the
 * service worker's route (whole, by Range, and navigated to directly, also in a page loaded by a hard reload, which
 * the worker takes over) with the bytes identical under the real name, or opened in the page where no worker runs;
 * and a file someone changed on the server shows "This message could not be decrypted" or fails its download, never
 * giving its bytes. The sealing device runs in the test's process (support/node-device).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { APP_ROUTES, type Message, SEALED_TEXT } from "@daysync/shared";
import { RECORD_SIZE } from "@daysync/shared/crypto";
import type { Browser, Download, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { type Device, messageList, signInViaApi, uniqueEmail, visible } from "./support/daysync.ts";
import { fetchRange } from "./support/fetch-range.ts";
import { keyedAccount, type NodeDevice } from "./support/node-device.ts";
import { type RunningServer, startServer } from "./support/server.ts";
import { tamperWithFile } from "./support/server-data.ts";

const IMAGE = readFileSync(path.join(import.meta.dirname, "../apps/web/public/icons/icon-192.png"));

/** Two seconds of a 440 Hz tone, 16-bit mono PCM at 22 050 Hz in a WAV: a real file Chromium plays, of several records. */
function tone(): Buffer {
  const rate = 22_050;
  const samples = rate * 2;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return wav;
}

/**
 * A second and a half of VP8 video in WebM, 160×120, recorded in Chromium itself from a canvas whose every frame is
 * new noise (so it is several records long): there is no video encoder on this machine but the browser's.
 */
async function recordVideo(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    const base64 = await page.evaluate(async () => {
      const canvas = Object.assign(document.createElement("canvas"), { width: 160, height: 120 });
      const context = canvas.getContext("2d");
      if (!context) throw new Error("no 2d context");
      const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: "video/webm;codecs=vp8", videoBitsPerSecond: 2_000_000 });
      const chunks: Blob[] = [];
      recorder.ondataavailable = (event) => chunks.push(event.data);
      const stopped = new Promise((resolve) => {
        recorder.onstop = resolve;
      });
      const noise = context.createImageData(160, 120);
      const draw = setInterval(() => {
        crypto.getRandomValues(noise.data.subarray(0, 65_536));
        crypto.getRandomValues(noise.data.subarray(65_536));
        for (let i = 3; i < noise.data.length; i += 4) noise.data[i] = 255;
        context.putImageData(noise, 0, 0);
      }, 33);
      recorder.start(250);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      recorder.stop();
      await stopped;
      clearInterval(draw);
      const url = await new Promise<string>((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.readAsDataURL(new Blob(chunks, { type: "video/webm" }));
      });
      return url.slice(url.indexOf(",") + 1);
    });
    return Buffer.from(base64, "base64");
  } finally {
    await page.close();
  }
}

/** More than two records, with a marker to find in the middle of the third. */
function binary(): Buffer {
  const data = randomBytes(2 * RECORD_SIZE + 40_000);
  data.write("DAYSYNC-MARKER-7731", 2 * RECORD_SIZE + 1_000);
  return data;
}

const itemOf = (page: Page, message: Message): Locator => page.locator(`#message-${message.id}`);

async function savedBytes(download: Download): Promise<Buffer> {
  const file = await download.path();
  return readFileSync(file);
}

describe("sealed files in the browser", () => {
  let server: RunningServer;
  let browser: Browser;
  let phone: NodeDevice;
  let laptop: Device;
  const audio = tone();
  const data = binary();
  const name = "Steuererklärung 2026 – “final”.bin";
  let sent: { image: Message; audio: Message; binary: Message };
  const email = uniqueEmail("sealed-files");

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    ({ phone, laptop } = await keyedAccount(browser, server.url, "Fen Files", email));
    sent = {
      image: await phone.sendSealedFile("beach at dusk.png", "image", IMAGE),
      audio: await phone.sendSealedFile("voice note.wav", "audio", audio),
      binary: await phone.sendSealedFile(name, "file", data),
    };
  });
  afterAll(async () => {
    await phone?.dispose();
    await browser?.close();
    await server?.stop();
  });

  it("shows a file as Locked until this device is approved: no name, no thumbnail, no Download", async () => {
    await laptop.page.goto(APP_ROUTES.dashboard);
    const list = messageList(laptop.page);
    await expect.poll(() => list.getByText(SEALED_TEXT.locked).count(), { timeout: 15_000 }).toBe(3);
    expect(await list.getByRole("link", { name: "Download" }).count()).toBe(0);
    expect(await list.getByRole("img").count()).toBe(0);
    expect(await list.getByText("beach at dusk.png").count()).toBe(0);
    await phone.approveByCheckCode(laptop.page);
    // The worker's route answers only a page it controls (it claims the page once it is active).
    await laptop.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
  });

  it("shows the opened names and plain sizes, and the image opened in the page as its thumbnail", async () => {
    const list = messageList(laptop.page);
    await visible(list.getByText(name, { exact: true }), 15_000);
    const binaryItem = itemOf(laptop.page, sent.binary);
    expect(await binaryItem.locator(".message-filesize").textContent()).toBe("167.1 KiB");
    expect(sent.binary.file_size).toBeGreaterThan(data.length);

    const image = itemOf(laptop.page, sent.image).getByRole("img", { name: "beach at dusk.png" });
    await visible(image, 15_000);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 }).toBe(192);
    expect(await image.getAttribute("src")).toMatch(/^blob:/);
    await itemOf(laptop.page, sent.image).getByRole("button", { name: "Open beach at dusk.png full size" }).click();
    await visible(laptop.page.getByRole("dialog", { name: "beach at dusk.png" }));
    await laptop.page.getByRole("button", { name: "Close" }).click();

    // Nothing the browser shows or links to carries the clear name to the server.
    const href = (await binaryItem.getByRole("link", { name: "Download" }).getAttribute("href")) ?? "";
    expect(href).toMatch(/^\/sealed-files\//);
    expect(decodeURIComponent(href)).not.toContain("Steuererklärung");
  });

  it("downloads a file of several records identical, under its opened name", async () => {
    const link = itemOf(laptop.page, sent.binary).getByRole("link", { name: "Download" });
    const [download] = await Promise.all([laptop.page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(name);
    expect(await download.failure()).toBeNull();
    const saved = await savedBytes(download);
    expect(saved.equals(data)).toBe(true);
    expect(saved.includes("DAYSYNC-MARKER-7731")).toBe(true);

    // The link navigated to directly is a download too, not the app shell.
    const href = (await link.getAttribute("href")) ?? "";
    const other = await laptop.context.newPage();
    const [direct] = await Promise.all([other.waitForEvent("download"), other.goto(href).catch(() => undefined)]);
    expect(direct.suggestedFilename()).toBe(name);
    expect((await savedBytes(direct)).equals(data)).toBe(true);
    await other.close();
  });

  it("answers a Range in plaintext coordinates with 206, opening only the records that hold it", async () => {
    const href = (await itemOf(laptop.page, sent.binary).getByRole("link", { name: "Download" }).getAttribute("href")) ?? "";
    const across = await fetchRange(laptop.page, href, `bytes=${RECORD_SIZE - 10}-${2 * RECORD_SIZE + 1_100}`);
    expect(across.status).toBe(206);
    expect(across.contentRange).toBe(`bytes ${RECORD_SIZE - 10}-${2 * RECORD_SIZE + 1_100}/${data.length}`);
    expect(Buffer.from(across.bytes).equals(data.subarray(RECORD_SIZE - 10, 2 * RECORD_SIZE + 1_101))).toBe(true);
    expect(Number(across.length)).toBe(across.bytes.length);

    const tail = await fetchRange(laptop.page, href, "bytes=-100");
    expect(tail.status).toBe(206);
    expect(Buffer.from(tail.bytes).equals(data.subarray(data.length - 100))).toBe(true);
    const open = await fetchRange(laptop.page, href, `bytes=${data.length - 5}-`);
    expect(Buffer.from(open.bytes).equals(data.subarray(data.length - 5))).toBe(true);
    expect((await fetchRange(laptop.page, href, `bytes=${data.length}-`)).status).toBe(416);
  });

  it("takes a page loaded by a hard reload over, so its player and download go through the worker", async () => {
    const page = await laptop.context.newPage();
    await page.goto(APP_ROUTES.dashboard);
    await visible(messageList(page).getByText(name, { exact: true }), 15_000);
    // A hard reload loads the page without its worker; the page asks the worker to take it over.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Page.reload", { ignoreCache: true });
    await page.waitForURL(/dashboard/);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    await visible(itemOf(page, sent.audio).getByLabel("voice note.wav"), 15_000);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      itemOf(page, sent.binary).getByRole("link", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(name);
    expect(download.url()).toContain("/sealed-files/");
    expect((await savedBytes(download)).equals(data)).toBe(true);
    await page.close();
  });

  it("downloads in the page where no service worker runs, and has no player then", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, serviceWorkers: "block" });
    const desk: Device = { context, page: await context.newPage() };
    await signInViaApi(desk, server.url, email);
    await desk.page.goto(APP_ROUTES.dashboard);
    await phone.approveByCheckCode(desk.page);
    await visible(messageList(desk.page).getByText(name, { exact: true }), 15_000);
    expect(await desk.page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
    expect(await itemOf(desk.page, sent.audio).getByLabel("voice note.wav").count()).toBe(0);

    const [download] = await Promise.all([
      desk.page.waitForEvent("download"),
      itemOf(desk.page, sent.binary).getByRole("link", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(name);
    expect((await savedBytes(download)).equals(data)).toBe(true);
    expect(download.url()).toMatch(/^blob:/);
    await context.close();
  });

  it("answers a link whose file does not open with an error status and its sentence, never bytes", async () => {
    const href = (await itemOf(laptop.page, sent.binary).getByRole("link", { name: "Download" }).getAttribute("href")) ?? "";
    const url = new URL(href, server.url);
    const key = url.searchParams.get("file_key") ?? "";
    url.searchParams.set("file_key", `${key.slice(0, -6)}${key.endsWith("AAAAAA") ? "BBBBBB" : "AAAAAA"}`);
    const answer = await laptop.page.evaluate(async (h) => {
      const res = await fetch(h);
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    }, `${url.pathname}${url.search}`);
    expect(answer).toEqual({ status: 422, type: "text/plain; charset=utf-8", text: SEALED_TEXT.undecryptable });
    // A link that names no file is refused by the worker, not sent on to the server.
    const malformed = await laptop.page.evaluate(async () => (await fetch("/sealed-files/%E0%A4%A?type=file")).status);
    expect(malformed).toBe(400);
  });

  it("plays sealed audio through the worker's route", async () => {
    const player = itemOf(laptop.page, sent.audio).getByLabel("voice note.wav");
    await visible(player, 15_000);
    expect(await player.getAttribute("src")).toMatch(/^\/sealed-files\//);
    await expect
      .poll(() => player.evaluate((el: HTMLAudioElement) => (el.error ? `error ${el.error.code}` : el.duration)), { timeout: 15_000 })
      .toBeCloseTo(2, 1);
  });

  it("plays a sealed video through the worker's route, past its first records", async () => {
    const clip = await recordVideo(browser);
    expect(clip.length).toBeGreaterThan(2 * RECORD_SIZE);
    const video = await phone.sendSealedFile("clip.webm", "video", clip);
    const player = itemOf(laptop.page, video).getByLabel("clip.webm");
    await visible(player, 15_000);
    expect(await player.getAttribute("src")).toMatch(/^\/sealed-files\//);
    const state = () =>
      player.evaluate((el: HTMLVideoElement) => (el.error ? `error ${el.error.code}` : `${el.videoWidth}×${el.videoHeight}`));
    await expect.poll(state, { timeout: 15_000 }).toBe("160×120");
    // Played to the end, muted (as a page may without a gesture): every record was opened and decoded. How long the
    // clip is depends on how many frames the recording got, which a busy machine cuts short.
    await player.evaluate((el: HTMLVideoElement) => {
      el.muted = true;
      return el.play();
    });
    await expect.poll(() => player.evaluate((el: HTMLVideoElement) => el.error?.code ?? el.ended), { timeout: 15_000 }).toBe(true);
    expect(await player.evaluate((el: HTMLVideoElement) => el.currentTime)).toBeGreaterThan(0);
  });

  it("says a changed image could not be decrypted, with no Download, and fails a changed file's download", async () => {
    const image = await phone.sendSealedFile("changed.png", "image", IMAGE);
    const file = await phone.sendSealedFile("changed.bin", "file", data);
    tamperWithFile(server.dataDir, image.file_url, 100);
    // In the last record: the first records open and start the download, which then fails.
    tamperWithFile(server.dataDir, file.file_url, -50);
    // The page may have opened the image as it arrived live, before the change: it opens it again on a new load.
    await laptop.page.reload();

    const imageItem = itemOf(laptop.page, image);
    await visible(imageItem.getByText(SEALED_TEXT.undecryptable), 15_000);
    expect(await imageItem.getByRole("link", { name: "Download" }).count()).toBe(0);
    expect(await imageItem.getByRole("img").count()).toBe(0);

    const fileItem = itemOf(laptop.page, file);
    await visible(fileItem.getByText("changed.bin"), 15_000);
    const [download] = await Promise.all([laptop.page.waitForEvent("download"), fileItem.getByRole("link", { name: "Download" }).click()]);
    expect(await download.failure()).not.toBeNull();
    // The link's navigation became the download: the app is still there.
    expect(new URL(laptop.page.url()).pathname).toBe(APP_ROUTES.dashboard);
  });
});

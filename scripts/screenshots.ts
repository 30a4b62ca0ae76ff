/**
 * Takes the gallery's ten screenshots (and the social-preview image) from the running app in real Chromium,
 * then writes them as WebP in the widths of apps/web/src/features/site/gallery/screenshots.ts.
 *
 *   node --import tsx scripts/screenshots.ts            build the app, start a fresh server, capture
 *   node --import tsx scripts/screenshots.ts --base URL  capture from a server that is already running
 *   options: --no-build, --only 05-dashboard (repeatable)
 */
import { execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { API, DISCUSSIONS_API, formatStoredDate, formatStoredTime, responseSchemas } from "@daysync/shared";
import type { Browser, BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { SCREENSHOTS, type Screenshot, screenshotFiles } from "../apps/web/src/features/site/gallery/screenshots.ts";
import { launchBrowser } from "../e2e/support/browser.ts";
import { type RunningServer, startServer } from "../e2e/support/server.ts";

const root = path.resolve(import.meta.dirname, "..");
const publicDir = path.join(root, "apps/web/public");
const outDir = path.join(publicDir, "screenshots");

const ACCOUNT = { name: "Alex Morgan", email: "alex.morgan@example.com", password: "daysync-demo-2024" };
/** Who Alex talks with in the discussion shot. */
const FRIEND = { name: "Sam Rivera", email: "sam.rivera@example.com", password: "daysync-demo-2024" };

/** The discussion of the shot: Alex made it, Sam joined; who says what, in order. */
const DISCUSSION = {
  title: "Lisbon weekend",
  lines: [
    ["alex", "Flights are booked: we land Friday 10:15"],
    ["sam", "Great! I found a flat in Alfama, 3 min from the tram"],
    ["sam", "https://www.example.com/stays/alfama-terrace"],
    ["alex", "Perfect. Dinner Saturday at the place with the view?"],
    ["sam", "Yes! I'll book for 8 pm"],
  ] as const,
};
/** Set by seed(): the discussion to open. */
let discussionId = "";

const MESSAGES = [
  "Gate B32 · boarding 9:40 · seat 14C",
  "https://www.example.com/recipes/lemon-pasta",
  "Wi-Fi at the studio: Daysync-Guest / sunflower-42",
  "Notes from the call: ship the landing page on Thursday, screenshots from the real app",
  "npm run build -w @daysync/web",
];

const { values: options } = parseArgs({
  options: {
    base: { type: "string" },
    "no-build": { type: "boolean", default: false },
    only: { type: "string", multiple: true },
  },
});

interface Capture {
  /** Theme of the capture; dark is chosen through the app's own toggle storage. */
  theme: "light" | "dark";
  signedIn: boolean;
  /** Brings the page into the state to photograph. */
  prepare: (page: Page, base: string) => Promise<void>;
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(400);
}

async function openDashboard(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await page
    .getByText(MESSAGES[0] ?? "", { exact: false })
    .first()
    .waitFor({ timeout: 15_000 });
}

/** What each screenshot shows; the ones whose screen does not exist yet take the closest existing one. */
const CAPTURES: Record<string, Capture> = {
  "01-landing": {
    theme: "light",
    signedIn: false,
    prepare: async (page, base) => {
      await page.goto(`${base}/`);
      await page.locator("#hero h1").waitFor();
    },
  },
  "02-login": {
    theme: "light",
    signedIn: false,
    prepare: async (page, base) => {
      await page.goto(`${base}/login`);
      await page.locator("form").first().waitFor();
      const email = page.getByLabel(/email/i).first();
      await email.fill(ACCOUNT.email);
      await email.blur();
    },
  },
  "03-qr-sign-in": {
    theme: "light",
    signedIn: false,
    prepare: async (page, base) => {
      await page.goto(`${base}/login`);
      await page.getByRole("button", { name: /connected device/i }).click();
      await page.locator("[aria-expanded='true']").waitFor();
      // The pairing code with its countdown, once the server has made one.
      await page
        .getByRole("timer")
        .first()
        .waitFor({ timeout: 5_000 })
        .catch(() => undefined);
    },
  },
  "04-add-device": {
    theme: "light",
    signedIn: true,
    prepare: async (page, base) => {
      await page.goto(`${base}/pair/add`);
      await page.getByRole("img", { name: /QR code/ }).waitFor({ timeout: 10_000 });
      await page.getByText(/Code expires in/).waitFor();
    },
  },
  "05-dashboard": {
    theme: "light",
    signedIn: true,
    prepare: async (page, base) => {
      await openDashboard(page, base);
      await page
        .getByText(MESSAGES[0] ?? "")
        .first()
        .scrollIntoViewIfNeeded();
    },
  },
  "06-file-upload": {
    theme: "light",
    signedIn: true,
    prepare: async (page, base) => {
      await openDashboard(page, base);
      // A slow uplink, so the picture catches both uploads under way with their progress.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 20,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
      await chooser.setFiles([
        { name: "holiday-photos.zip", mimeType: "application/zip", buffer: Buffer.alloc(12_000_000, 37) },
        { name: "slides-final.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(6_000_000, 37) },
      ]);
      await page.getByRole("button", { name: "Send 2 files" }).click();
      await page
        .getByText(/Uploading selected file [1-9]/)
        .first()
        .waitFor({ timeout: 15_000 });
    },
  },
  "07-dark-theme": { theme: "dark", signedIn: true, prepare: openDashboard },
  "08-phone-dashboard": { theme: "light", signedIn: true, prepare: openDashboard },
  "10-discussion": {
    theme: "light",
    signedIn: true,
    prepare: async (page, base) => {
      await page.goto(`${base}/discussions/${discussionId}`);
      await page.getByText(DISCUSSION.lines.at(-1)?.[1] ?? "").waitFor({ timeout: 15_000 });
    },
  },
  "09-phone-landing": {
    theme: "dark",
    signedIn: false,
    prepare: async (page, base) => {
      await page.goto(`${base}/`);
      await page.locator("#hero h1").waitFor();
    },
  },
};

async function newContext(browser: Browser, shot: Pick<Screenshot, "viewport">, theme: "light" | "dark"): Promise<BrowserContext> {
  const { width, height, scale } = shot.viewport;
  const context = await browser.newContext({
    viewport: { width, height },
    deviceScaleFactor: scale,
    colorScheme: theme,
    reducedMotion: "reduce",
    isMobile: width < 600,
    hasTouch: width < 600,
  });
  await context.addInitScript((value) => localStorage.setItem("daysync-theme", value), theme);
  return context;
}

async function signIn(context: BrowserContext, base: string): Promise<void> {
  const response = await context.request.post(`${base}${API.login}`, { data: { email: ACCOUNT.email, password: ACCOUNT.password } });
  if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
}

/** Sends a file the way the app does: one tus upload carrying the message's metadata. */
async function uploadFile(context: BrowserContext, base: string, filename: string, type: string, body: Buffer): Promise<void> {
  const now = new Date();
  const meta = { filename, filetype: type, message_id: randomUUID(), date: formatStoredDate(now), time: formatStoredTime(now) };
  const encoded = Object.entries(meta)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString("base64")}`)
    .join(",");
  const created = await context.request.post(`${base}${API.uploads}`, {
    headers: { "Tus-Resumable": "1.0.0", "Upload-Length": String(body.length), "Upload-Metadata": encoded },
  });
  const location = created.headers().location;
  if (created.status() !== 201 || !location) throw new Error(`upload create failed: ${created.status()} ${await created.text()}`);
  const patched = await context.request.patch(new URL(location, base).href, {
    headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
    data: body,
  });
  if (patched.status() !== 204) throw new Error(`upload failed: ${patched.status()} ${await patched.text()}`);
}

/** Creates the demo account (or reuses it) and fills today's page. */
async function seed(browser: Browser, base: string): Promise<void> {
  const context = await browser.newContext();
  const registered = await context.request.post(`${base}${API.register}`, {
    data: { ...ACCOUNT, confirm_password: ACCOUNT.password },
  });
  if (registered.status() === 409) await signIn(context, base);
  else if (!registered.ok()) throw new Error(`register failed: ${registered.status()} ${await registered.text()}`);

  for (const content of MESSAGES) {
    const now = new Date();
    const response = await context.request.post(`${base}${API.messages}`, {
      data: { id: randomUUID(), content, date: formatStoredDate(now), time: formatStoredTime(now) },
    });
    if (!response.ok()) throw new Error(`message failed: ${response.status()} ${await response.text()}`);
  }
  const photo = await sharp({
    create: { width: 960, height: 640, channels: 3, background: "#f59e0b" },
  })
    .composite([{ input: Buffer.from(PHOTO_SVG), top: 0, left: 0 }])
    .png()
    .toBuffer();
  await uploadFile(context, base, "lisbon-tram.png", "image/png", photo);
  await uploadFile(context, base, "boarding-pass.pdf", "application/pdf", Buffer.from("%PDF-1.4\n% Daysync demo\n"));
  await seedDiscussion(browser, base, context);
  await context.close();
}

/** Alex's discussion with Sam (who joins by its ID), a second one where Sam wrote last, so the sidebar shows an unread count. */
async function seedDiscussion(browser: Browser, base: string, alex: BrowserContext): Promise<void> {
  const sam = await browser.newContext();
  const registered = await sam.request.post(`${base}${API.register}`, { data: { ...FRIEND, confirm_password: FRIEND.password } });
  if (registered.status() === 409) {
    const response = await sam.request.post(`${base}${API.login}`, { data: { email: FRIEND.email, password: FRIEND.password } });
    if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
  } else if (!registered.ok()) throw new Error(`register failed: ${registered.status()} ${await registered.text()}`);

  const start = async (title: string) => {
    const created = await alex.request.post(`${base}${DISCUSSIONS_API.list}`, { data: { title, display_name: "Alex" } });
    if (!created.ok()) throw new Error(`discussion failed: ${created.status()} ${await created.text()}`);
    const { discussion } = responseSchemas.discussion.parse(await created.json());
    const joined = await sam.request.post(`${base}${DISCUSSIONS_API.join(discussion.public_id)}`, { data: { display_name: "Sam" } });
    if (!joined.ok()) throw new Error(`join failed: ${joined.status()} ${await joined.text()}`);
    return discussion.id;
  };
  const say = async (who: BrowserContext, id: string, content: string) => {
    const now = new Date();
    const response = await who.request.post(`${base}${DISCUSSIONS_API.messages(id)}`, {
      data: { id: randomUUID(), content, date: formatStoredDate(now), time: formatStoredTime(now) },
    });
    if (!response.ok()) throw new Error(`message failed: ${response.status()} ${await response.text()}`);
  };

  const other = await start("Book club: May");
  await say(sam, other, "Chapter 7 for Thursday?");
  await say(sam, other, "Or all of part two if you're fast");
  discussionId = await start(DISCUSSION.title);
  for (const [who, text] of DISCUSSION.lines) await say(who === "alex" ? alex : sam, discussionId, text);
  await sam.close();
}

/** A simple drawn "photo" for the image message: sky, hills and a yellow tram. */
const PHOTO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="640">
  <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#60a5fa"/><stop offset="1" stop-color="#fde68a"/></linearGradient></defs>
  <rect width="960" height="640" fill="url(#sky)"/>
  <circle cx="760" cy="150" r="70" fill="#fff7ed" opacity="0.9"/>
  <path d="M0 430 Q240 330 480 420 T960 400 V640 H0z" fill="#f97316" opacity="0.55"/>
  <path d="M0 500 Q300 430 620 500 T960 480 V640 H0z" fill="#b45309" opacity="0.7"/>
  <rect x="300" y="360" width="360" height="170" rx="26" fill="#facc15"/>
  <rect x="330" y="390" width="80" height="70" rx="8" fill="#1e3a8a"/><rect x="440" y="390" width="80" height="70" rx="8" fill="#1e3a8a"/><rect x="550" y="390" width="80" height="70" rx="8" fill="#1e3a8a"/>
  <rect x="300" y="490" width="360" height="16" fill="#b91c1c"/>
  <circle cx="370" cy="545" r="20" fill="#1f2937"/><circle cx="590" cy="545" r="20" fill="#1f2937"/>
  <path d="M480 360 V300 M450 300 H510" stroke="#1f2937" stroke-width="6"/>
</svg>`;

async function writeVariants(shot: Screenshot, png: Buffer): Promise<void> {
  for (const file of screenshotFiles(shot)) {
    const target = path.join(publicDir, file.src);
    await sharp(png).resize({ width: file.width, height: file.height, fit: "fill" }).webp({ quality: 80, effort: 6 }).toFile(target);
  }
}

async function captureAll(browser: Browser, base: string): Promise<void> {
  const wanted = options.only?.length ? SCREENSHOTS.filter((shot) => options.only?.includes(shot.name)) : SCREENSHOTS;
  for (const shot of wanted) {
    const capture = CAPTURES[shot.name];
    if (!capture) throw new Error(`no capture defined for ${shot.name}`);
    const context = await newContext(browser, shot, capture.theme);
    if (capture.signedIn) await signIn(context, base);
    const page = await context.newPage();
    await capture.prepare(page, base);
    await settle(page);
    const png = await page.screenshot({ type: "png", animations: "disabled", caret: "hide" });
    await writeVariants(shot, png);
    console.log(`✓ ${shot.name}`);
    await context.close();
  }
}

/** Social preview: the landing's hero at 1200×630, and the touch icon from the favicon. */
async function captureBrandAssets(browser: Browser, base: string): Promise<void> {
  const context = await newContext(browser, { viewport: { width: 1200, height: 630, scale: 1 } }, "light");
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.locator("#hero h1").waitFor();
  await settle(page);
  const png = await page.screenshot({ type: "png", animations: "disabled" });
  await sharp(png).png({ compressionLevel: 9, palette: true, quality: 90 }).toFile(path.join(publicDir, "og-image.png"));
  await context.close();
  const svg = readFileSync(path.join(publicDir, "favicon.svg"));
  await sharp(svg, { density: 600 })
    .resize(180, 180)
    .flatten({ background: "#1d4ed8" })
    .png()
    .toFile(path.join(publicDir, "apple-touch-icon.png"));
  console.log("✓ og-image.png, apple-touch-icon.png");
}

function removeStale(): void {
  const expected = new Set(SCREENSHOTS.flatMap((shot) => screenshotFiles(shot).map((file) => path.basename(file.src))));
  for (const name of readdirSync(outDir)) if (!expected.has(name)) rmSync(path.join(outDir, name));
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  let server: RunningServer | undefined;
  let base = options.base;
  if (!base) {
    if (!options["no-build"]) execSync("npm run build -w @daysync/web", { cwd: root, stdio: "inherit" });
    server = await startServer();
    base = server.url;
  }
  const browser = await launchBrowser();
  try {
    await seed(browser, base);
    await captureAll(browser, base);
    if (!options.only?.length) {
      await captureBrandAssets(browser, base);
      removeStale();
    }
  } finally {
    await browser.close();
    await server?.stop();
  }
}

await main();

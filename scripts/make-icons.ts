/**
 * Draws the installable app's icons from the favicon (apps/web/public/favicon.svg) with sharp:
 * the manifest's 192 and 512 px icons, a maskable 512 px one (full bleed, mark inside the safe zone)
 * and a one-colour badge for notifications.
 *
 *   node --import tsx scripts/make-icons.ts
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";

const publicDir = path.resolve(import.meta.dirname, "../apps/web/public");
const outDir = path.join(publicDir, "icons");
const BRAND = "#1d4ed8";

/** The favicon's inner drawing (two cards and the sync arc), without its rounded square. */
const MARK = `
  <rect x="8" y="9" width="10" height="12" rx="2.5" fill="#ffffff" opacity="0.55"/>
  <rect x="14" y="12" width="10" height="12" rx="2.5" fill="#ffffff"/>
  <path d="M9 24.5a8 8 0 0 0 5 2.3" fill="none" stroke="#ffffff" stroke-width="1.8" stroke-linecap="round"/>`;

const maskable = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <rect width="32" height="32" fill="${BRAND}"/>
  <g transform="translate(16 16) scale(1) translate(-16 -17)">${MARK}</g>
</svg>`;

const badge = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <g transform="translate(16 16) scale(1.15) translate(-16 -17)">${MARK.replace('opacity="0.55"', 'opacity="0.7"')}</g>
</svg>`;

async function render(svg: Buffer | string, size: number, file: string) {
  await sharp(Buffer.from(svg), { density: (72 * size) / 32 })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(path.join(outDir, file));
  console.log(`wrote icons/${file}`);
}

mkdirSync(outDir, { recursive: true });
const favicon = readFileSync(path.join(publicDir, "favicon.svg"));
await render(favicon, 192, "icon-192.png");
await render(favicon, 512, "icon-512.png");
await render(maskable, 512, "icon-maskable-512.png");
await render(badge, 96, "badge-96.png");

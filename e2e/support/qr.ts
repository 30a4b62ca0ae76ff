import jsQR from "jsqr";
import type { Page } from "playwright-core";
import sharp from "sharp";

/** Reads the QR code from a screenshot of the page, as a phone's camera would. */
export async function readQrFromScreen(page: Page): Promise<string> {
  const png = await page.screenshot();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const found = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
  if (!found) throw new Error("no QR code on the screen");
  return found.data;
}

import jsQR from "jsqr";
import type { Page } from "playwright-core";
import sharp from "sharp";

/**
 * Reads the QR code from screenshots of the page, as a phone's camera keeps looking until it finds one: the code's
 * image can be in the page a frame or two before it is painted (CI once took its screenshot in between).
 */
export async function readQrFromScreen(page: Page, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const png = await page.screenshot();
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const found = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
    if (found) return found.data;
    if (Date.now() > deadline) throw new Error("no QR code on the screen");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A camera that films a picture: Chromium's fake capture device fed a Y4M file made from a PNG. */
import { writeFileSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import sharp from "sharp";
import { CHROMIUM_ARGS } from "./browser.ts";
import { watchPolicyViolations } from "./policy-violations.ts";

const WIDTH = 640;
const HEIGHT = 480;

/** Writes `png`, centred on white, as a few grey frames of 4:2:0 video (Y4M). */
export async function writeCameraVideo(png: Buffer, file: string): Promise<void> {
  const picture = await sharp(png)
    .resize({ height: HEIGHT - 80, fit: "inside" })
    .png()
    .toBuffer();
  const luma = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#ffffff" } })
    .composite([{ input: picture, gravity: "center" }])
    .greyscale()
    .raw()
    .toBuffer();
  const chroma = Buffer.alloc((WIDTH / 2) * (HEIGHT / 2), 128);
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma.subarray(0, WIDTH * HEIGHT), chroma, chroma]);
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`);
  writeFileSync(file, Buffer.concat([header, frame, frame, frame]));
}

export async function launchBrowserWithCamera(videoFile: string): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      ...(videoFile ? [`--use-file-for-fake-video-capture=${videoFile}`] : []),
    ],
  });
  return watchPolicyViolations(browser);
}

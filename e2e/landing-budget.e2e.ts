/**
 * What the landing page's phone visitor downloads before scrolling: its script stays within the budget Lighthouse's
 * mobile score depends on (bench/lighthouse.ts), and zod, which the app needs, stays out of it. A constant the public
 * pages import from a shared module that makes schemas brought zod (85 KiB) in twice.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";

const app = useStartedApp();

/** The bench's target for the landing's script before scrolling, gzipped. */
const LANDING_JS_BUDGET_KIB = 100;

describe.each(["/", "/home"])("%s before scrolling", (path) => {
  it("loads at most 100 KiB of gzipped script, none of it zod", async () => {
    const page = await app.browser.newPage({ viewport: { width: 412, height: 823 } });
    const scripts: Promise<{ file: string; gzipBytes: number; zod: boolean }>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() !== "script") return;
      scripts.push(
        response.body().then((body) => ({
          file: new URL(response.url()).pathname,
          gzipBytes: gzipSync(body).length,
          // zod names its error class with this string; no other code the pages load does.
          zod: body.includes("$ZodError"),
        })),
      );
    });
    await page.goto(`${app.server.url}${path}`, { waitUntil: "networkidle" });
    await page.locator("h1").first().waitFor();
    const loaded = await Promise.all(scripts);
    expect(loaded.filter((s) => s.zod).map((s) => s.file)).toEqual([]);
    const kib = loaded.reduce((sum, s) => sum + s.gzipBytes, 0) / 1024;
    expect(kib, loaded.map((s) => `${s.file} ${(s.gzipBytes / 1024).toFixed(1)} KiB`).join(", ")).toBeLessThanOrEqual(
      LANDING_JS_BUDGET_KIB,
    );
    await page.close();
  });
});

/**
 * Lighthouse (mobile settings) on / and /login of a freshly started server, with Debian's Chromium,
 * plus the gzipped JavaScript the landing page loads before any scrolling.
 * Run: npm run bench:lighthouse (builds first). Writes bench/lighthouse-results.json and lighthouse-results.md.
 * RUNS=5 by default; the median run (by performance score) of each page is kept.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_ARGS, launchBrowser } from "../e2e/support/browser.ts";
import { startServer } from "../e2e/support/server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PAGES = ["/", "/login"] as const;
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
const RUNS = Number(process.env.RUNS ?? 5);
const TARGETS = { performance: 95, accessibility: 100, "best-practices": 100, seo: 100, landingJsGzipKiB: 100 } as const;

type Category = (typeof CATEGORIES)[number];

interface PageResult {
  scores: Record<Category, number>;
  metrics: Record<string, string>;
  /** Audits that cost points, per category, for the summary. */
  misses: Record<Category, string[]>;
}

async function runLighthouse(url: string): Promise<PageResult> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: [...CHROMIUM_ARGS, "--headless=new"] });
  try {
    // No config: Lighthouse's defaults are the mobile ones (emulated phone, simulated slow 4G, 4× CPU slowdown).
    const result = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES] });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const scores = {} as Record<Category, number>;
    const misses = {} as Record<Category, string[]>;
    for (const id of CATEGORIES) {
      const category = lhr.categories[id];
      scores[id] = Math.round((category?.score ?? 0) * 100);
      misses[id] = (category?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .map((ref) => lhr.audits[ref.id])
        .filter((audit) => audit !== undefined && audit.score !== null && audit.score < 1)
        .map((audit) => `${audit?.id}: ${audit?.displayValue ?? audit?.score}`);
    }
    const metric = (id: string) => lhr.audits[id]?.displayValue ?? "";
    const metrics = {
      "first-contentful-paint": metric("first-contentful-paint"),
      "largest-contentful-paint": metric("largest-contentful-paint"),
      "total-blocking-time": metric("total-blocking-time"),
      "cumulative-layout-shift": metric("cumulative-layout-shift"),
      "speed-index": metric("speed-index"),
    };
    return { scores, metrics, misses };
  } finally {
    chrome.kill();
  }
}

/** Median run by performance score, since that is the one that varies. */
function median(results: PageResult[]): PageResult {
  const sorted = [...results].sort((a, b) => a.scores.performance - b.scores.performance);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error("no runs");
  return middle;
}

interface ScriptSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** Every script the landing loads at first view, without scrolling, gzipped here with zlib's default level. */
async function landingScripts(url: string): Promise<ScriptSize[]> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 412, height: 823 } });
    const pending: Promise<ScriptSize>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() !== "script") return;
      pending.push(
        response.body().then((body) => ({
          file: new URL(response.url()).pathname,
          bytes: body.length,
          gzipBytes: gzipSync(body).length,
        })),
      );
    });
    await page.goto(url, { waitUntil: "networkidle" });
    await page.waitForTimeout(500);
    return await Promise.all(pending);
  } finally {
    await browser.close();
  }
}

const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

async function main(): Promise<void> {
  const server = await startServer();
  try {
    const pages: Record<string, PageResult & { runs: number[] }> = {};
    for (const page of PAGES) {
      const runs: PageResult[] = [];
      for (let i = 0; i < RUNS; i += 1) runs.push(await runLighthouse(`${server.url}${page}`));
      pages[page] = { ...median(runs), runs: runs.map((run) => run.scores.performance) };
      console.log(page, pages[page]?.scores, "performance runs:", pages[page]?.runs.join(", "));
    }
    const scripts = await landingScripts(`${server.url}/`);
    const gzipBytes = scripts.reduce((sum, s) => sum + s.gzipBytes, 0);
    const landingJs = { gzipBytes, gzipKiB: kib(gzipBytes), files: scripts.map((s) => ({ ...s, gzipKiB: kib(s.gzipBytes) })) };
    console.log(`landing JS: ${landingJs.gzipKiB} KiB gzipped in ${scripts.length} files`);

    const lighthouseVersion = (await import("lighthouse/package.json", { with: { type: "json" } })).default.version;
    const chromium = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const results = {
      date: new Date().toISOString(),
      lighthouse: lighthouseVersion,
      chromium,
      settings: "Lighthouse default mobile: emulated Moto G Power, simulated slow 4G, 4x CPU slowdown",
      runsPerPage: RUNS,
      targets: TARGETS,
      pages,
      landingJs,
    };
    const here = import.meta.dirname;
    writeFileSync(path.join(here, "lighthouse-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(path.join(here, "lighthouse-results.md"), summary(results.date, chromium, pages, landingJs.gzipKiB, scripts));
  } finally {
    await server.stop();
  }
}

function summary(date: string, chromium: string, pages: Record<string, PageResult>, jsKiB: number, scripts: ScriptSize[]): string {
  const rows = Object.entries(pages).map(
    ([page, r]) => `| ${page} | ${CATEGORIES.map((c) => r.scores[c]).join(" | ")} | ${r.metrics["largest-contentful-paint"]} |`,
  );
  const misses = Object.entries(pages).flatMap(([page, r]) => CATEGORIES.flatMap((c) => r.misses[c].map((m) => `- ${page} ${c}: ${m}`)));
  const files = scripts.map((s) => `- ${s.file}: ${kib(s.gzipBytes)} KiB gz (${kib(s.bytes)} KiB)`);
  return [
    "# Lighthouse results",
    "",
    `${date}, ${chromium}, mobile settings, median of ${RUNS} runs. Targets: performance ≥ ${TARGETS.performance}, the others 100, landing JS ≤ ${TARGETS.landingJsGzipKiB} KiB gz.`,
    "",
    "| page | performance | accessibility | best practices | SEO | LCP |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `Landing JavaScript before scrolling: **${jsKiB} KiB gzipped**`,
    ...files,
    "",
    "Audits that cost points:",
    ...(misses.length ? misses : ["- none"]),
    "",
  ].join("\n");
}

await main();

/**
 * Lighthouse (mobile settings) on / and /login of a freshly started server, with Debian's Chromium,
 * plus the gzipped JavaScript the landing page loads before any scrolling.
 * Run: npm run bench:lighthouse (builds first). Writes bench/lighthouse-results.json and lighthouse-results.md.
 * RUNS=5 by default; the median run (by performance score) of each page is kept, and every run's score,
 * metrics and the machine's load average are listed. `--note "text"` adds a note (what changed) to the summary.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_ARGS, launchBrowser } from "../e2e/support/browser.ts";
import { startServer } from "../e2e/support/server.ts";
import { addHistoryLine } from "./support/history.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PAGES = ["/", "/login"] as const;
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
const RUNS = Number(process.env.RUNS ?? 5);
const HELP = `Usage: npm run bench:lighthouse [-- --note "what changed"]
Environment: RUNS (default 5), CHROMIUM_PATH (default /usr/bin/chromium).
Writes bench/lighthouse-results.json and bench/lighthouse-results.md.`;
const TARGETS = { performance: 95, accessibility: 100, "best-practices": 100, seo: 100, landingJsGzipKiB: 100 } as const;

type Category = (typeof CATEGORIES)[number];

interface PageResult {
  scores: Record<Category, number>;
  metrics: Record<string, string>;
  /** Audits that cost points, per category, for the summary. */
  misses: Record<Category, string[]>;
  /** The machine's 1-minute load average when the run started: the simulated CPU figures swing with it. */
  load: number;
}

interface PageRuns extends PageResult {
  /** Every run's performance score, in order. */
  runs: number[];
  /** Every run in order: score, the metrics that vary, and the load. */
  runDetails: { performance: number; fcp: string; lcp: string; tbt: string; load: number }[];
}

async function runLighthouse(url: string): Promise<PageResult> {
  const load = loadavg()[0] ?? 0;
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
    return { scores, metrics, misses, load };
  } finally {
    chrome.kill();
  }
}

/**
 * Lighthouse sometimes fails to record the trace on a loaded machine (NO_NAVSTART, "Please run Lighthouse
 * again"): such a run measures nothing, so it is run again, at most twice, and says so.
 */
async function runAgainOnTraceError(url: string): Promise<PageResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await runLighthouse(url);
    } catch (error) {
      if (attempt === 3 || !String(error).includes("NO_NAVSTART")) throw error;
      console.log(`${url}: ${String(error)}; running it again`);
    }
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

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main(): Promise<void> {
  if (process.argv.includes("--help")) {
    console.log(HELP);
    return;
  }
  const note = option("--note");
  const server = await startServer();
  try {
    const pages: Record<string, PageRuns> = {};
    for (const page of PAGES) {
      const runs: PageResult[] = [];
      for (let i = 0; i < RUNS; i += 1) runs.push(await runAgainOnTraceError(`${server.url}${page}`));
      pages[page] = {
        ...median(runs),
        runs: runs.map((run) => run.scores.performance),
        runDetails: runs.map((run) => ({
          performance: run.scores.performance,
          fcp: run.metrics["first-contentful-paint"] ?? "",
          lcp: run.metrics["largest-contentful-paint"] ?? "",
          tbt: run.metrics["total-blocking-time"] ?? "",
          load: run.load,
        })),
      };
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
      note,
      targets: TARGETS,
      pages,
      landingJs,
    };
    const here = import.meta.dirname;
    writeFileSync(path.join(here, "lighthouse-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(path.join(here, "lighthouse-results.md"), summary(results.date, chromium, pages, landingJs.gzipKiB, scripts, note));
    addHistoryLine("lighthouse", historyLine(results.date, pages, note));
  } finally {
    await server.stop();
  }
}

/** The run on one line for HISTORY.md: every run's performance per page, and the load. */
function historyLine(date: string, pages: Record<string, PageRuns>, note: string | undefined): string {
  const loads = Object.values(pages).flatMap((r) => r.runDetails.map((run) => run.load));
  const perPage = Object.entries(pages).map(([page, r]) => `${page} ${r.runs.join(", ")}`);
  const load = `load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
  return `${date.slice(0, 16).replace("T", " ")} UTC: ${[...perPage, load].join("; ")}${note ? ` (${note.slice(0, 80)})` : ""}`;
}

function summary(
  date: string,
  chromium: string,
  pages: Record<string, PageRuns>,
  jsKiB: number,
  scripts: ScriptSize[],
  note: string | undefined,
): string {
  const rows = Object.entries(pages).map(
    ([page, r]) => `| ${page} | ${CATEGORIES.map((c) => r.scores[c]).join(" | ")} | ${r.metrics["largest-contentful-paint"]} |`,
  );
  const misses = Object.entries(pages).flatMap(([page, r]) => CATEGORIES.flatMap((c) => r.misses[c].map((m) => `- ${page} ${c}: ${m}`)));
  const runRows = Object.entries(pages).flatMap(([page, r]) =>
    r.runDetails.map(
      (run, i) => `| ${page} | ${i + 1} | ${run.performance} | ${run.fcp} | ${run.lcp} | ${run.tbt} | ${run.load.toFixed(2)} |`,
    ),
  );
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
    "Every run (load: the machine's 1-minute load average as the run started, on 2 cores):",
    "",
    "| page | run | performance | FCP | LCP | TBT | load |",
    "|---|---|---|---|---|---|---|",
    ...runRows,
    "",
    ...(note ? [note, ""] : []),
    `Landing JavaScript before scrolling: **${jsKiB} KiB gzipped**`,
    ...files,
    "",
    "Audits that cost points:",
    ...(misses.length ? misses : ["- none"]),
    "",
  ].join("\n");
}

await main();

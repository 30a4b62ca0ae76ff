/**
 * What the sync benches' results files have in common: a JSON of every labelled run, a Markdown page rendered from it
 * (a goals table, then the latest runs), and every run's goals as a line in bench/HISTORY.md; and the machine's stamp
 * each run begins with.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { writeHistoryBlock } from "../support/history.ts";
import { round } from "./ratios.ts";

/** Runs in the goals table, and runs shown in full; older ones are in HISTORY.md. */
export const GOAL_ROWS = 6;
export const DETAILED_RUNS = 2;

// biome-ignore lint/suspicious/noExplicitAny: the results file is our own output, read back for tables.
export type Run = any;

/** A column of the goals table: its heading and its cell for a run. */
export type GoalColumns = [string, (r: Run) => unknown][];

/**
 * When a run was made, the machine it ran on, and its 1-, 5- and 15-minute load averages before and after: other work
 * on the machine inflates every figure.
 */
export function runStamp(loadBefore: number[]) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average: { before: loadBefore.map((l) => round(l)), after: os.loadavg().map((l) => round(l)) },
  };
}

export const minuteOf = (date: string) => `${date.slice(0, 10)} ${date.slice(11, 16)}`;

const newestFirst = (all: Record<string, Run>): Run[] =>
  Object.entries(all)
    .map(([label, run]) => ({ ...run, label }))
    .sort((a, b) => b.date.localeCompare(a.date));

/** The goals table: a heading row, then a row per run. */
function goalsTable(columns: GoalColumns, runs: Run[]): string {
  const head = `| ${columns.map(([name]) => name).join(" | ")} |\n|${columns.map(() => "---").join("|")}|\n`;
  return `${head}${runs.map((r) => `| ${columns.map(([, get]) => String(get(r))).join(" | ")} |`).join("\n")}`;
}

/** A run's goals on one line, for HISTORY.md (the first two columns, label and time, lead it). */
const historyLine = (columns: GoalColumns) => (r: Run) =>
  `- ${minuteOf(r.date)} UTC \`${r.label}\`: ${columns
    .slice(2)
    .map(([name, get]) => `${name} ${String(get(r))}`)
    .join("; ")}`;

/** A results page: its title and what it says above the goals, the goals' columns, and a run shown in full. */
export interface ResultsPage {
  head: string[];
  /** Lines under the goals' heading, above their table (none: straight to the table). */
  goalsIntro: string[];
  columns: GoalColumns;
  renderRun: (r: Run) => string;
}

/** The page, newest run first: the head, the latest runs' goals, then the latest runs in full. */
function render(page: ResultsPage, runs: Run[]): string {
  return [
    ...page.head,
    "",
    "## Goals, run by run",
    "",
    ...(page.goalsIntro.length > 0 ? [...page.goalsIntro, ""] : []),
    goalsTable(page.columns, runs.slice(0, GOAL_ROWS)),
    "",
    "## Each run",
    "",
    runs.slice(0, DETAILED_RUNS).map(page.renderRun).join("\n"),
  ].join("\n");
}

/**
 * A bench's results: `save` keeps a run under its label and writes the Markdown and the HISTORY.md block again;
 * `renderAgain` writes them from the JSON alone.
 */
export function resultsFile(files: { json: string; md: string; history: string }, page: ResultsPage) {
  const write = (all: Record<string, Run>) => {
    const runs = newestFirst(all);
    writeFileSync(files.md, render(page, runs));
    writeHistoryBlock(files.history, runs.map(historyLine(page.columns)));
  };
  return {
    save(label: string, run: Run): void {
      const all: Record<string, Run> = existsSync(files.json) ? JSON.parse(readFileSync(files.json, "utf8")) : {};
      all[label] = run;
      writeFileSync(files.json, `${JSON.stringify(all, null, 2)}\n`);
      write(all);
    },
    renderAgain(): void {
      write(JSON.parse(readFileSync(files.json, "utf8")));
    },
  };
}

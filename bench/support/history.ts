/**
 * bench/HISTORY.md: one line per past run of every bench, newest first, in a block per bench. The results files keep
 * the goals and the latest runs only; a bench writes its block here (whole, from its JSON, or a line at a time).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const HISTORY_FILE = path.join(import.meta.dirname, "../HISTORY.md");

const HEADER = [
  "# Bench history",
  "",
  "What each bench run changed and what was learned (by hand), then one line per past run, newest first, written by",
  "the benches (`bench/support/history.ts`). Each `*-results.md` keeps the goals and the latest runs.",
  "",
].join("\n");

const start = (bench: string) => `<!-- ${bench}:start -->`;
const end = (bench: string) => `<!-- ${bench}:end -->`;

function blockLines(text: string, bench: string): string[] | undefined {
  const from = text.indexOf(start(bench));
  const to = text.indexOf(end(bench));
  if (from === -1 || to === -1) return undefined;
  return text
    .slice(from + start(bench).length, to)
    .split("\n")
    .filter((line) => line.startsWith("- "));
}

/** Replaces the bench's block with these lines (newest first), keeping every other bench's. */
export function writeHistoryBlock(bench: string, lines: string[], file = HISTORY_FILE): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : HEADER;
  const block = `${start(bench)}\n## ${bench}\n\n${lines.join("\n")}\n${end(bench)}`;
  const from = text.indexOf(start(bench));
  const to = text.indexOf(end(bench));
  const next =
    from === -1 || to === -1 ? `${text.trimEnd()}\n\n${block}\n` : `${text.slice(0, from)}${block}${text.slice(to + end(bench).length)}`;
  writeFileSync(file, next);
}

/** Puts one line at the top of the bench's block. */
export function addHistoryLine(bench: string, line: string, file = HISTORY_FILE): void {
  const lines = existsSync(file) ? (blockLines(readFileSync(file, "utf8"), bench) ?? []) : [];
  writeHistoryBlock(bench, [`- ${line}`, ...lines], file);
}

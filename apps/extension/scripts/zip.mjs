/**
 * Packs `dist/` into `daysync-extension.zip` (stored in `apps/extension/`), the file to load or publish in Chrome's
 * and Firefox's stores, with fflate. Every entry is dated the same, so the same dist makes the same zip.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";

const root = path.resolve(import.meta.dirname, "..");
const dist = path.join(root, "dist");
const out = path.join(root, "daysync-extension.zip");
const SAME_DATE = new Date("2000-01-01T00:00:00Z");

const filesUnder = (folder) =>
  readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const full = path.join(folder, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });

const entries = Object.fromEntries(
  filesUnder(dist).map((file) => [
    path.relative(dist, file).split(path.sep).join("/"),
    [readFileSync(file), { level: 9, mtime: SAME_DATE }],
  ]),
);
writeFileSync(out, zipSync(entries));
console.log(`${path.relative(process.cwd(), out)}: ${Object.keys(entries).length} files`);

/**
 * The web app's walls (issue 44), for every folder under src/features/ as it is today, not a list kept by hand:
 * no feature imports another feature or app/ (app/ assembles them), and lib/ imports neither. Read from the import
 * statements of the files themselves, dynamic imports included.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

const IMPORT = /(?:\bimport|\bexport)\s[^'"]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** "features/<name>", "app", "lib" or another top folder of src/ that a path lies in. */
function area(src: string, file: string): string {
  const [top, name] = path.relative(src, file).split(path.sep);
  return top === "features" && name ? `features/${name}` : (top ?? "");
}

/** Every import that crosses a wall, as "<file> imports <target>", relative to src/. */
export function wallBreaches(src: string): string[] {
  const breaches: string[] = [];
  const walled = [...sourceFiles(path.join(src, "features")), ...sourceFiles(path.join(src, "lib"))];
  for (const file of walled) {
    const from = area(src, file);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? "";
      if (!specifier.startsWith(".")) continue;
      const to = area(src, path.resolve(path.dirname(file), specifier));
      const crosses = to === "app" || (to.startsWith("features/") && to !== from);
      if (crosses) breaches.push(`${path.relative(src, file)} imports ${path.relative(src, path.resolve(path.dirname(file), specifier))}`);
    }
  }
  return breaches;
}

describe("web feature walls", () => {
  it("has features to wall", () => {
    expect(readdirSync(path.join(SRC, "features")).length).toBeGreaterThan(10);
  });

  it("no feature imports another feature or app/, and lib/ imports neither", () => {
    expect(wallBreaches(SRC)).toEqual([]);
  });

  it("finds a planted cross-feature import, a dynamic one, and lib/ reaching into a feature", () => {
    const src = mkdtempSync(path.join(tmpdir(), "walls-"));
    try {
      for (const dir of ["features/chat", "features/keys/deep", "lib", "app"]) mkdirSync(path.join(src, dir), { recursive: true });
      writeFileSync(path.join(src, "features/keys/deep/key.ts"), "export const key = 1;\n");
      writeFileSync(path.join(src, "features/chat/own.ts"), 'import { x } from "./other.ts";\nimport { y } from "../../lib/api.ts";\n');
      writeFileSync(
        path.join(src, "features/chat/view.tsx"),
        'import { key } from "../keys/deep/key.ts";\nconst later = () => import("../../app/routes.tsx");\n',
      );
      writeFileSync(path.join(src, "lib/api.ts"), 'export { key } from "../features/keys/deep/key.ts";\n');
      expect(wallBreaches(src)).toEqual([
        "features/chat/view.tsx imports features/keys/deep/key.ts",
        "features/chat/view.tsx imports app/routes.tsx",
        "lib/api.ts imports features/keys/deep/key.ts",
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });
});

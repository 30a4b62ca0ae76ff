/**
 * A program the tests start many times (the server, the `daysync` command), bundled once with esbuild so each start
 * loads one file instead of compiling TypeScript through tsx. The bundle lives in a git-ignored `.tmp/` and is
 * rebuilt whenever it is missing or older than any file it was built from, so a single test file run on its own,
 * after an edit, still runs the code as it is now.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";
import { z } from "zod";

export interface BundleSpec {
  /** The TypeScript entry point. */
  entry: string;
  /** Where the bundle goes (an `.mjs` file in a `.tmp/` folder of the workspace, so its externals resolve). */
  outfile: string;
  /** Registry packages loaded from node_modules at run time rather than bundled (native modules among them). */
  external: string[];
}

const metafileSchema = z.object({ spec: z.string(), inputs: z.array(z.string()) });

const metaPath = (spec: BundleSpec) => `${spec.outfile}.inputs.json`;

function isFresh(spec: BundleSpec): boolean {
  try {
    const meta = metafileSchema.parse(JSON.parse(readFileSync(metaPath(spec), "utf8")));
    if (meta.spec !== JSON.stringify(spec)) return false;
    const built = statSync(spec.outfile).mtimeMs;
    return meta.inputs.every((input) => statSync(input).mtimeMs <= built);
  } catch {
    // Missing, unreadable or an input gone: build afresh.
    return false;
  }
}

const checked = new Set<string>();

/** The path of `spec`'s bundle, built first when it is missing or stale (checked once per process). */
export function freshBundle(spec: BundleSpec): string {
  if (checked.has(spec.outfile) || isFresh(spec)) {
    checked.add(spec.outfile);
    return spec.outfile;
  }
  const result = buildSync({
    entryPoints: [spec.entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: spec.external,
    write: false,
    metafile: true,
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild wrote nothing for ${spec.entry}`);
  // Several test workers may build at once: each writes its own file and renames it into place, so a process
  // started meanwhile never reads half a bundle.
  mkdirSync(path.dirname(spec.outfile), { recursive: true });
  const partial = `${spec.outfile}.${process.pid}.partial`;
  writeFileSync(partial, output.contents);
  renameSync(partial, spec.outfile);
  const cwd = process.cwd();
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(cwd, input));
  writeFileSync(`${metaPath(spec)}.${process.pid}.partial`, JSON.stringify({ spec: JSON.stringify(spec), inputs }));
  renameSync(`${metaPath(spec)}.${process.pid}.partial`, metaPath(spec));
  checked.add(spec.outfile);
  return spec.outfile;
}

/** The registry dependencies named in a workspace's package.json: left outside its bundle. */
export function registryDependencies(packageJson: string): string[] {
  const parsed = z
    .object({ dependencies: z.record(z.string(), z.string()).default({}) })
    .parse(JSON.parse(readFileSync(packageJson, "utf8")));
  return Object.keys(parsed.dependencies).filter((name) => !name.startsWith("@daysync/"));
}

// Bundles the command line into dist/daysync.js for `npm pack` / `npm install -g` from a tarball: our code and
// @daysync/shared (a workspace package that is not on the registry) go in; the registry dependencies stay
// outside and are installed with the package.
import { build } from "esbuild";
import packageJson from "./package.json" with { type: "json" };

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/daysync.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: Object.keys(packageJson.dependencies),
  logLevel: "warning",
});

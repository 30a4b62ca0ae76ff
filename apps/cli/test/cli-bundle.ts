/** The `daysync` command as one bundle, which the tests run as `node daysync.mjs` (see fresh-bundle.ts). */
import path from "node:path";
import { freshBundle, registryDependencies } from "../../server/src/testing/fresh-bundle.ts";

const cliRoot = path.resolve(import.meta.dirname, "..");

/** The bundled command, built first when missing or older than its sources (ours and @daysync/shared's). */
export function cliBundle(): string {
  return freshBundle({
    entry: path.join(cliRoot, "src/main.ts"),
    outfile: path.join(cliRoot, ".tmp/test-bundle/daysync.mjs"),
    external: registryDependencies(path.join(cliRoot, "package.json")),
  });
}

/** For vitest's globalSetup: build before the workers start, so they do not all build at once. */
export function setup() {
  cliBundle();
}

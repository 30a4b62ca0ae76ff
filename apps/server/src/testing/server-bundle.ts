/**
 * The server's main.ts (or the operator's admin.ts) as one bundle, for the tests that start it as its own process
 * (see fresh-bundle.ts). The bundle sits four folders below the repository, as config.ts does, so the paths it finds
 * from its own place (the web app's dist/) are the same.
 */
import path from "node:path";
import { freshBundle, registryDependencies } from "./fresh-bundle.ts";

const serverRoot = path.resolve(import.meta.dirname, "../..");

/** The bundled server (or admin command), built first when missing or older than its sources. */
export function serverBundle(program: "main" | "admin" = "main"): string {
  return freshBundle({
    entry: path.join(serverRoot, `src/${program}.ts`),
    outfile: path.join(serverRoot, `.tmp/test-bundle/${program}.mjs`),
    external: registryDependencies(path.join(serverRoot, "package.json")),
  });
}

/** For vitest's globalSetup: build before the workers start, so they do not all build at once. */
export function setup() {
  serverBundle();
}

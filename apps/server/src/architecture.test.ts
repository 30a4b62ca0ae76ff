/** The structure that lets a second engine or adapter come in without touching services (conventions 4, 12). */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(new URL(import.meta.url).pathname);

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep).join("/");

/**
 * The layers of the server, lowest first. A file may import from its own layer and the ones below it, never from a
 * layer above: the platform knows nothing of the domains, the domains nothing of live delivery or the wiring.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  /** What everything may read: the clock and the configuration. */
  ["clock.ts", "config"],
  /** The database: connection, schema, migrations, group commit, prepared statements. */
  ["db"],
  /** Adapters to what is outside the process: the event bus, file storage, Redis-or-memory state, presence. */
  ["events", "storage", "adapters"],
  /** The HTTP kernel (auth, errors, validation, frames), the policies, and how rows are shown. */
  ["http", "access", "presenters"],
  /** The feed: typed changes, their presenters, the change log and the unit of work. */
  ["feed"],
  /** The domains. */
  ["modules"],
  /** Live delivery: the socket, its replay and sequence check. */
  ["realtime"],
  /** The composition root and the entry points. */
  ["app", "main.ts", "admin.ts"],
];

const layerOf = (name: string) => LAYERS.findIndex((parts) => parts.includes(name.split("/")[0] ?? ""));

/** The files of this tree each relative import of `text` names, from `file`. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
}
/** Test support and the database layer itself (connection, migrations, copy, the user-row lock) may query directly. */
const isDataLayer = (file: string) => /\.repository\.ts$/.test(file) || /^(testing|db)\//.test(relative(file));
const files = sourceFiles().map((file) => ({ name: relative(file), text: readFileSync(file, "utf8") }));

describe("server structure", () => {
  it("puts every source folder in a layer", () => {
    const unplaced = files.filter((f) => !f.name.startsWith("testing/") && layerOf(f.name) === -1).map((f) => f.name);
    expect(unplaced).toEqual([]);
  });

  it("has no import that runs back up a layer", () => {
    const upward = files
      .filter((f) => !f.name.startsWith("testing/"))
      .flatMap((f) =>
        importsOf(f.name, f.text)
          .filter((target) => layerOf(target) > layerOf(f.name))
          .map((target) => `${f.name} -> ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it("keeps every SQL statement in a repository", () => {
    const sql = /\.(selectFrom|updateTable|insertInto|deleteFrom)\(/;
    const outside = files.filter((f) => !isDataLayer(path.join(SRC, f.name)) && sql.test(f.text)).map((f) => f.name);
    expect(outside).toEqual([]);
  });

  it("injects repositories into services, which never build their own (a transaction's comes from `.in(trx)`)", () => {
    const building = /\bcreate\w+Repository\(/;
    const builders = files.filter(
      (f) => !isDataLayer(path.join(SRC, f.name)) && !/^(app\/|admin\.ts)/.test(f.name) && building.test(f.text),
    );
    expect(builders.map((f) => f.name)).toEqual([]);
  });

  it("joins users to their current plan in one place", () => {
    const join = /innerJoin\(\s*"subscriptions"/;
    expect(files.filter((f) => join.test(f.text)).map((f) => f.name)).toEqual(["modules/plans/plans.repository.ts"]);
  });

  it("keeps the HTTP kernel apart from the wiring: no file in http/ imports a module's routes or service", () => {
    const wiring = /from "[^"]*\.(routes|service)\.ts"/;
    expect(files.filter((f) => f.name.startsWith("http/") && wiring.test(f.text)).map((f) => f.name)).toEqual([]);
  });

  it("lets modules import the HTTP kernel, never the composition root", () => {
    const fromRoot = /from "(\.\.\/)+app\//;
    const importers = files.filter((f) => !/^(app\/|main\.ts|admin\.ts|testing\/)/.test(f.name) && fromRoot.test(f.text));
    expect(importers.map((f) => f.name)).toEqual([]);
  });
});

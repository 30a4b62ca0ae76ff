/**
 * The checks `architecture.test.ts` runs on the server's modules, as functions of a list of files, so a test can run
 * them on a planted example as well as on the real tree (and the client's walls can be checked the same way).
 */
import path from "node:path";

export interface SourceFile {
  /** Relative to `apps/server/src`, with `/`. */
  name: string;
  text: string;
}

export interface ModuleRules {
  /** Each module's rank: it imports only modules of a lower rank. */
  ranks: Readonly<Record<string, number>>;
}

/** The files each relative import of `file` names, normalised from the source root. */
export function importsOf(file: SourceFile): string[] {
  const specifiers = [...file.text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file.name), specifier)));
}

/** The module a file is in (`modules/<m>/…`), or undefined. */
export const moduleOf = (name: string) => /^modules\/([^/]+)\//.exec(name)?.[1];

/** The composition root and test support build everything, so they may reach into a module's files. */
const reachesIn = (name: string) => /^(app\/|main\.ts$|admin\.ts$|testing\/)/.test(name) || name.endsWith(".test.ts");

/**
 * Imports that cross into another module other than through its `index.ts`, or that go from a module to one not
 * ranked below it, and modules with no rank.
 */
export function moduleImportProblems(files: readonly SourceFile[], rules: ModuleRules): string[] {
  const problems: string[] = [];
  const unranked = new Set(files.map((f) => moduleOf(f.name)).filter((m) => m !== undefined && !(m in rules.ranks)));
  for (const m of unranked) problems.push(`modules/${m} has no rank`);
  for (const file of files) {
    if (reachesIn(file.name)) continue;
    const from = moduleOf(file.name);
    for (const target of importsOf(file)) {
      const to = moduleOf(target);
      if (to === undefined || to === from) continue;
      if (target !== `modules/${to}/index.ts`) problems.push(`${file.name} -> ${target}: not through modules/${to}/index.ts`);
      if (from !== undefined && !((rules.ranks[to] ?? Infinity) < (rules.ranks[from] ?? -Infinity)))
        problems.push(`${file.name} -> ${target}: ${to} is not below ${from}`);
    }
  }
  return problems;
}

/** The first loop found in the graph of imports between modules, as `modules/a -> modules/b -> modules/a`. */
export function cycleAmongModules(files: readonly SourceFile[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = moduleOf(file.name);
    if (from === undefined) continue;
    for (const target of importsOf(file)) {
      const to = moduleOf(target);
      if (to !== undefined && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const done = new Set<string>();
  const visit = (node: string, trail: string[]): string[] | undefined => {
    if (trail.includes(node)) return [...trail.slice(trail.indexOf(node)), node];
    if (done.has(node)) return undefined;
    for (const next of edges.get(node) ?? []) {
      const loop = visit(next, [...trail, node]);
      if (loop) return loop;
    }
    done.add(node);
    return undefined;
  };
  for (const node of [...edges.keys()].sort()) {
    const loop = visit(node, []);
    if (loop) return [loop.map((m) => `modules/${m}`).join(" -> ")];
  }
  return [];
}

/** The text of each raw SQL template in a file (`` sql`…` ``, `` sql<Row>`…` ``). */
const rawSqlOf = (text: string) => [...text.matchAll(/\bsql(?:<[^`]*?>)?`([^`]*)`/g)].map((m) => m[1] ?? "");

/**
 * The tables a raw statement writes: `insert into t`, `update t`, `delete from t`, in any case, the name quoted or
 * not. An upsert's `do update set` and a lock's `for update` write no other table, so they are not counted.
 */
const rawWrites = (statement: string) =>
  [...statement.matchAll(/(?<!\b(?:do|for)\s+)\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/gi)].map((m) =>
    (m[1] ?? "").toLowerCase(),
  );

/**
 * The tables a file writes: `insertInto("t")`, `updateTable("t")`, `deleteFrom("t")`, and raw SQL's `insert into t`,
 * `update t`, `delete from t`.
 */
export function tablesWrittenBy(file: SourceFile): string[] {
  const built = [...file.text.matchAll(/\.(?:insertInto|updateTable|deleteFrom)\(\s*"([a-z_]+)"/g)].map((m) => m[1] ?? "");
  return [...built, ...rawSqlOf(file.text).flatMap(rawWrites)];
}

/** Tables written by more than one module (the feed's change log counts as the module `feed`). */
export function secondWriters(files: readonly SourceFile[]): string[] {
  const writers = new Map<string, Set<string>>();
  for (const file of files) {
    if (file.name.startsWith("testing/") || file.name.startsWith("db/") || file.name.endsWith(".test.ts")) continue;
    const owner = moduleOf(file.name) ?? file.name.split("/")[0] ?? file.name;
    for (const table of tablesWrittenBy(file)) writers.set(table, (writers.get(table) ?? new Set()).add(owner));
  }
  const problems: string[] = [];
  for (const [table, by] of [...writers].sort(([a], [b]) => a.localeCompare(b))) {
    if (by.size > 1) problems.push(`${table}: written by ${[...by].sort().join(", ")}`);
  }
  return problems;
}

/** The structure that lets a second engine or adapter come in without touching services (conventions 4, 12). */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cycleAmongModules, moduleImportProblems, secondWriters, tablesWrittenBy } from "./testing/module-graph.ts";

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
  /** The domains, ranked among themselves by `MODULE_RANKS`. */
  ["modules"],
  /** Work that spans modules (account deletion): it asks each module, which owns its tables. */
  ["flows"],
  /** Live delivery: the socket, its replay and sequence check. */
  ["realtime"],
  /** The composition root and the entry points. */
  ["app", "main.ts", "admin.ts"],
];

/**
 * The modules, ranked: a module imports only modules of a lower rank, and only through their `index.ts`. What a lower
 * module needs from a higher one (a hook, a check) is handed to it by the composition root as a function.
 */
const MODULE_RANKS: Readonly<Record<string, number>> = {
  /** Who may read a space; the keys' opaque rows; the home network's pages; the installation's shared values. */
  spaces: 0,
  keys: 0,
  "home-network": 0,
  "server-keys": 0,
  /** A user's plan; sessions seen as devices; who may register. */
  plans: 1,
  devices: 1,
  invites: 1,
  /** Users, sessions and passwords. */
  accounts: 2,
  /** What acts on accounts: the admin page, email links, pairing, a discussion's life, Web Push. */
  admin: 3,
  email: 3,
  pairing: 3,
  discussions: 3,
  push: 3,
  /** Messages of every space; sign-in by a provider; payments. */
  messages: 4,
  identities: 4,
  payments: 4,
  /** Files, and the sweeper. */
  uploads: 5,
  retention: 5,
};

const layerOf = (name: string) => LAYERS.findIndex((parts) => parts.includes(name.split("/")[0] ?? ""));

/** The files of this tree each relative import of `text` names, from `file`. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
}
/** Test support and the database layer itself (connection, migrations, copy, the user-row lock) may query directly. */
const isDataLayer = (file: string) => /\.repository\.ts$/.test(file) || /^(testing|db)\//.test(relative(file));
const files = sourceFiles().map((file) => ({ name: relative(file), text: readFileSync(file, "utf8") }));
const moduleChecks = { ranks: MODULE_RANKS };

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

  it("ranks every module, and a module imports only a lower one, through its index.ts", () => {
    expect(moduleImportProblems(files, moduleChecks)).toEqual([]);
  });

  it("has no loop between modules", () => {
    expect(cycleAmongModules(files)).toEqual([]);
  });

  it("writes each table from one module only (the others ask it)", () => {
    expect(secondWriters(files)).toEqual([]);
  });

  describe("refuses what is planted", () => {
    const planted = (name: string, text: string) => [...files.filter((f) => f.name !== name), { name, text }];

    it("a loop between modules", () => {
      const loop = [
        { name: "modules/a/index.ts", text: 'import { b } from "../b/index.ts";' },
        { name: "modules/b/index.ts", text: 'import { a } from "../a/index.ts";' },
      ];
      expect(cycleAmongModules(loop)).toEqual(["modules/a -> modules/b -> modules/a"]);
      const ranks = { a: 0, b: 1 };
      expect(moduleImportProblems(loop, { ranks })).toEqual(["modules/a/index.ts -> modules/b/index.ts: b is not below a"]);
    });

    it("an import of a module's inner file, and an import up the ranks", () => {
      const inner = planted("modules/devices/planted.ts", 'import { x } from "../accounts/users.repository.ts";');
      expect(moduleImportProblems(inner, moduleChecks)).toEqual([
        ...moduleImportProblems(files, moduleChecks),
        "modules/devices/planted.ts -> modules/accounts/users.repository.ts: not through modules/accounts/index.ts",
        "modules/devices/planted.ts -> modules/accounts/users.repository.ts: accounts is not below devices",
      ]);
    });

    it("a second writer of a table", () => {
      const second = planted("modules/plans/planted.repository.ts", 'await db.deleteFrom("invites").where("id", "=", id);');
      expect(secondWriters(second)).toEqual(["invites: written by invites, plans"]);
    });

    it("the feed locking a user's row itself, rather than through accounts' statements", () => {
      const lock = 'await db.updateTable("users").set((eb) => ({ seq: eb.ref("seq") })).where("id", "=", userId).execute();';
      expect(secondWriters(planted("feed/planted.repository.ts", lock))).toEqual(["users: written by accounts, feed"]);
    });

    it("a second writer of a table in raw SQL", () => {
      const text = 'await sql`DELETE FROM "invites" WHERE id = 1`.execute(db);';
      const second = planted("modules/plans/planted.repository.ts", text);
      expect(secondWriters(second)).toEqual(["invites: written by invites, plans"]);
    });
  });

  describe("sees the tables a file writes", () => {
    const written = (text: string) => tablesWrittenBy({ name: "modules/plans/planted.repository.ts", text });

    it("through Kysely's builders", () => {
      const text = 'db.insertInto("a").values(row); db.updateTable( "b" ).set(s); db.deleteFrom("c").where(w);';
      expect(written(text)).toEqual(["a", "b", "c"]);
    });

    it("through raw SQL, in any case, the name quoted or not, over lines, typed or not", () => {
      expect(written("sql`insert into a (id) values (1)`")).toEqual(["a"]);
      expect(written('sql`UPDATE "b" SET seq = seq + 1`')).toEqual(["b"]);
      expect(written("sql<Row>`\n  Delete\n  From c where id = 1 returning *`")).toEqual(["c"]);
      expect(written("sql`with x as (select 1) update d set n = 1`")).toEqual(["d"]);
    });

    it("but not an upsert's own update, a lock, a read, or SQL-like words outside a template", () => {
      const upsert = "sql`insert into a (id) values (1) on conflict (id) do update set n = excluded.n`";
      expect(written(upsert)).toEqual(["a"]);
      expect(written("sql`select * from b where id = 1 for update`")).toEqual([]);
      expect(written("sql`select updated_at from c`")).toEqual([]);
      expect(written('const note = "update d when the user deletes from e";')).toEqual([]);
    });
  });
});

/**
 * Preloaded into the measured process (server or bare relay) over an IPC channel. "stats" answers its CPU time,
 * memory after a full GC (when started with --expose-gc) and, in the server, how many SQL statements better-sqlite3
 * prepared and ran, by their first words: enough to count statements per message and writes from heartbeats.
 */
import { createRequire } from "node:module";
import path from "node:path";

export interface ProbeStats {
  cpu_ms: number;
  rss_bytes: number;
  heap_used_bytes: number;
  /** Prepared statements (better-sqlite3 `prepare` calls: Kysely prepares every query anew). */
  prepared: number;
  /** Statements run, keyed by their first words ("update sessions", "insert into user_events", ...). */
  statements: Record<string, number>;
}

const statements: Record<string, number> = {};
let prepared = 0;

/** Counts every statement the server runs; better-sqlite3 is resolved the way the server resolves it. */
function countStatements() {
  const require = createRequire(path.resolve("apps/server/package.json"));
  let Database: new (file: string) => { prepare(sql: string): object };
  try {
    Database = require("better-sqlite3");
  } catch {
    return; // not the server
  }
  const probe = new Database(":memory:");
  const dbProto = Object.getPrototypeOf(probe) as { prepare: (sql: string) => object };
  const stmtProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, (...args: unknown[]) => unknown>;
  const originalPrepare = dbProto.prepare;
  const sqlOf = new WeakMap<object, string>();
  dbProto.prepare = function (this: unknown, sql: string) {
    prepared += 1;
    const statement = originalPrepare.call(this, sql);
    const words = sql
      .replace(/["`]/g, "")
      .trim()
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => !["into", "from", "or", "ignore"].includes(w))
      .slice(0, 2)
      .join(" ");
    sqlOf.set(statement, /^select/.test(words) ? `select ${/from\s+"?(\w+)/i.exec(sql)?.[1] ?? ""}` : words);
    return statement;
  };
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = stmtProto[method];
    if (!original) continue;
    stmtProto[method] = function (this: object, ...args: unknown[]) {
      const key = sqlOf.get(this) ?? "other";
      statements[key] = (statements[key] ?? 0) + 1;
      return original.apply(this, args);
    };
  }
}
countStatements();

process.on("message", (command) => {
  if (command !== "stats") return;
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const stats: ProbeStats = {
    cpu_ms: (cpu.user + cpu.system) / 1000,
    rss_bytes: memory.rss,
    heap_used_bytes: memory.heapUsed,
    prepared,
    statements: { ...statements },
  };
  process.send?.(stats);
});
// The channel alone must not keep the process alive once it has shut down.
process.channel?.unref();

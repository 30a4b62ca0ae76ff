/**
 * Preloaded into the measured process (server or bare relay) over an IPC channel. "stats" answers its CPU time,
 * memory after a full GC (when started with --expose-gc; "stats-no-gc" skips the GC, for the start and end of a
 * window whose CPU alone is measured: a forced full GC drops optimised code, which the process then compiles again
 * inside the window) and, in the server, how many SQL statements it ran, by
 * their first words (better-sqlite3's, and how many it prepared; or pg's, on PostgreSQL): enough to count
 * statements per message and writes from heartbeats.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { createRequire } from "node:module";
import { Socket } from "node:net";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface ProbeStats {
  cpu_ms: number;
  rss_bytes: number;
  heap_used_bytes: number;
  /** Prepared statements (better-sqlite3 `prepare` calls; always 0 on PostgreSQL). */
  prepared: number;
  /** Statements run, keyed by their first words ("update sessions", "insert into user_events", ...). */
  statements: Record<string, number>;
  /** How late the event loop ran since the previous "stats" (99th percentile and worst, ms): its stalls. */
  loop_delay_ms: { p99: number; max: number };
  /** Writes handed to the kernel on TCP sockets (net.Socket's `_write` and `_writev`, a system call each): frames and answers leaving. */
  socket_writes: number;
}

const statements: Record<string, number> = {};
const sqliteCounters: Array<{ key: string; n: number }> = [];
let prepared = 0;

/** "update sessions", "insert user_events", "select messages", "begin": what a statement does, and to what. */
function keyOf(sql: string): string {
  const words = sql
    .replace(/["`]/g, "")
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => !["into", "from", "or", "ignore"].includes(w))
    .slice(0, 2)
    .join(" ");
  return /^select/.test(words) ? `select ${/from\s+"?(\w+)/i.exec(sql)?.[1] ?? ""}` : words;
}

const count = (key: string) => {
  statements[key] = (statements[key] ?? 0) + 1;
};

function statementCounts(): Record<string, number> {
  const all = { ...statements };
  for (const { key, n } of sqliteCounters) if (n > 0) all[key] = (all[key] ?? 0) + n;
  return all;
}

const require = createRequire(path.resolve("apps/server/package.json"));

/** Counts every statement the server runs on SQLite; better-sqlite3 is resolved the way the server resolves it. */
function countSqliteStatements() {
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
  // A counter per prepared statement, summed by key only when asked: the wrapper below runs for every statement
  // in the measured window, so it does as little as it can (no rest parameters, no keyed store).
  const counterOf = new WeakMap<object, { key: string; n: number }>();
  dbProto.prepare = function (this: unknown, sql: string) {
    prepared += 1;
    const statement = originalPrepare.call(this, sql);
    const counter = { key: keyOf(sql), n: 0 };
    counterOf.set(statement, counter);
    sqliteCounters.push(counter);
    return statement;
  };
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = stmtProto[method];
    if (!original) continue;
    stmtProto[method] = function (this: object, a?: unknown, b?: unknown, c?: unknown, d?: unknown, ...more: unknown[]) {
      const counter = counterOf.get(this);
      if (counter) counter.n += 1;
      else count("other");
      // biome-ignore lint/complexity/noArguments: how many values came decides what is passed on, without a rest array.
      switch (arguments.length) {
        case 0:
          return original.call(this);
        case 1:
          return original.call(this, a);
        case 2:
          return original.call(this, a, b);
        case 3:
          return original.call(this, a, b, c);
        case 4:
          return original.call(this, a, b, c, d);
        default:
          return original.call(this, a, b, c, d, ...more);
      }
    };
  }
}

/** Counts every statement the server sends to PostgreSQL (Kysely's pool clients all run `Client.query`). */
function countPgStatements() {
  let Client: { prototype: { query: (...args: unknown[]) => unknown } };
  try {
    Client = require("pg").Client;
  } catch {
    return; // not the server
  }
  const original = Client.prototype.query;
  Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first] = args;
    const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "");
    count(keyOf(text) || "other");
    return original.apply(this, args);
  };
}

countSqliteStatements();
countPgStatements();

let socketWrites = 0;
/** Counts each write a socket hands to the kernel: one per frame unless several are held and leave together. */
function countSocketWrites() {
  const proto = Socket.prototype as unknown as Record<"_write" | "_writev", (...args: unknown[]) => unknown>;
  for (const method of ["_write", "_writev"] as const) {
    const original = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      socketWrites += 1;
      return original.apply(this, args);
    };
  }
}
countSocketWrites();

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

/**
 * With BENCH_PROFILE_DIR set, "profile-start" and "profile-stop" take a CPU profile of this process between them
 * (the measured sends only, where `--cpu-prof` would profile the sign-ins and every other phase too), written as
 * BENCH_PROFILE_DIR/BENCH_PROFILE_NAME-N.cpuprofile (the N-th window) for Chrome's DevTools or any .cpuprofile reader.
 */
function profileCommand(command: "profile-start" | "profile-stop") {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return;
  if (command === "profile-start") {
    profiler.post("Profiler.enable", () => profiler.post("Profiler.start"));
    return;
  }
  profiler.post("Profiler.stop", (error, result) => {
    if (error) console.error(`profile not written: ${error.message}`);
    else {
      profiles += 1;
      const name = `${process.env.BENCH_PROFILE_NAME ?? process.pid}-${profiles}.cpuprofile`;
      writeFileSync(path.join(dir, name), JSON.stringify(result.profile));
    }
  });
}
const profiler = new Session();
/** Profiles written so far: each window's file is numbered in turn (NAME-1, NAME-2, …). */
let profiles = 0;
if (process.env.BENCH_PROFILE_DIR) profiler.connect();

process.on("message", (command) => {
  if (command === "profile-start" || command === "profile-stop") return profileCommand(command);
  if (command !== "stats" && command !== "stats-no-gc") return;
  // CPU first: the full GC below is the probe's own work, not the load's.
  const cpu = process.cpuUsage();
  if (command === "stats") (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const stats: ProbeStats = {
    cpu_ms: (cpu.user + cpu.system) / 1000,
    rss_bytes: memory.rss,
    heap_used_bytes: memory.heapUsed,
    prepared,
    statements: statementCounts(),
    loop_delay_ms: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
    socket_writes: socketWrites,
  };
  loopDelay.reset();
  process.send?.(stats);
});
// The channel alone must not keep the process alive once it has shut down.
process.channel?.unref();

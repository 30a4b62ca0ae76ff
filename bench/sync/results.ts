/**
 * Keeps every labelled run in bench/sync-results.json and renders bench/sync-results.md from it: one narrow table of
 * the goals, a row per recent run, then the latest runs' figures as a table each (metrics down, server and relay
 * across); every run is a line in bench/HISTORY.md.
 * What each run changed and what was learned is written by hand in bench/HISTORY.md, not here.
 * Run directly (`npx tsx bench/sync/results.ts`) to render the Markdown again from the JSON without a bench run.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DETAILED_RUNS, GOAL_ROWS, type GoalColumns, minuteOf, type Run, resultsFile } from "./results-file.ts";

const JSON_FILE = path.join(import.meta.dirname, "../sync-results.json");
const MD_FILE = path.join(import.meta.dirname, "../sync-results.md");
const NONE = "—";

/** A ratio over the fan-out's pair and every paired round, as "median (min to max)"; the one pair's before rounds existed. */
function ratio(run: Run, key: "cpu_per_message" | "latency_p99"): string {
  const spread = run.paired_rounds?.[key];
  if (spread) return `${spread.median} (${spread.min}–${spread.max})`;
  return `${run.ratios_server_to_relay[key]} (1 pair)`;
}

const engineOf = (r: Run) =>
  `${r.settings.database ?? "sqlite"}${r.settings.redis ? " + redis" : ""}${(r.settings.processes ?? 1) > 1 ? ` ×${r.settings.processes}` : ""}`;

const setupOf = (r: Run) => `${engineOf(r)}, ${r.settings.devices} at ${r.settings.rate_per_s}/s`;

const thousands = (n: number) => n.toLocaleString("en-US");

/** Memory per idle socket, and the heartbeat's session writes while idle (there should be none). */
function idleOf(r: Run): string {
  const writes = r.server.idle.sql_statements_while_idle["update sessions"] ?? 0;
  return `${r.server.idle.memory_per_socket_kib}, ${writes === 0 ? "no writes" : `${writes} writes`}`;
}

function problems(r: Run): string {
  const { lost, duplicates, out_of_order: outOfOrder } = r.server.fan_out;
  const lostInRounds = r.paired_rounds?.server.at(-1)?.lost_so_far ?? 0;
  if (lost + duplicates + outOfOrder + lostInRounds === 0) return "none";
  return `lost ${Math.max(lost, lostInRounds)}, duplicated ${duplicates}, out of order ${outOfOrder}`;
}

/** The socket rounds' ratio (issue 47), "median (min to max)"; none before they existed. */
function socketRatio(run: Run, key: "cpu_per_message" | "latency_p99"): string {
  const spread = run.socket_rounds?.[key];
  return spread ? `${spread.median} (${spread.min}–${spread.max})` : NONE;
}

const goalColumns: GoalColumns = [
  ["run", (r) => `\`${r.label}\``],
  ["UTC", (r) => minuteOf(r.date)],
  ["load", (r) => r.load_average.before[0]],
  ["setup", setupOf],
  ["HTTP send CPU ≤ 3× (was 2×)", (r) => ratio(r, "cpu_per_message")],
  ["p99 ≤ 5×", (r) => ratio(r, "latency_p99")],
  ["socket send CPU ≤ 2×", (r) => socketRatio(r, "cpu_per_message")],
  ["socket p99 ≤ 5×", (r) => socketRatio(r, "latency_p99")],
  ["one day ≥ 5,000/s", (r) => thousands(r.server.one_day.messages_per_s)],
  ["idle ≤ 30 KiB", idleOf],
  ["lost", problems],
];

/** Frames over every message sent, the warm-up's included (its frames are counted too). */
const framesPerMessage = (f: Run) => (f.frames_received / (f.messages + (f.warmup_messages ?? 0))).toFixed(2);

const listOf = (values: unknown[]) => values.join(", ");

/** A run's figures: name, then the server's and the relay's value (undefined: not measured in that run). */
const metricRows: [string, (side: Run, run: Run, isServer: boolean) => unknown][] = [
  ["fan-out: delivered / expected", (s) => `${s.fan_out.delivered} / ${s.fan_out.expected}`],
  ["fan-out: lost, duplicated, out of order", (s) => `${s.fan_out.lost}, ${s.fan_out.duplicates}, ${s.fan_out.out_of_order}`],
  ["fan-out: frames received per message", (s) => framesPerMessage(s.fan_out)],
  [
    "fan-out: delivery p50 / p99 / max, ms",
    (s) => `${s.fan_out.latency_ms.p50} / ${s.fan_out.latency_ms.p99} / ${s.fan_out.latency_ms.max}`,
  ],
  [
    "fan-out: event-loop delay while sending, p99 / max, ms",
    (s) => s.fan_out.event_loop_delay_ms && `${s.fan_out.event_loop_delay_ms.p99} / ${s.fan_out.event_loop_delay_ms.max}`,
  ],
  ["fan-out: CPU ms per message", (s) => s.fan_out.cpu_ms_per_message],
  ["fan-out: busy while sending, cores", (s) => s.fan_out.cpu_busy],
  [
    "paired rounds: CPU ms per message, each round",
    (_, r, isServer) => r.paired_rounds && listOf(r.paired_rounds[isServer ? "server" : "relay"].map((w: Run) => w.cpu_ms_per_message)),
  ],
  [
    "paired rounds: delivery p99 ms, each round",
    (_, r, isServer) => r.paired_rounds && listOf(r.paired_rounds[isServer ? "server" : "relay"].map((w: Run) => w.latency_ms.p99)),
  ],
  [
    "socket rounds: CPU ms per message, each round",
    (_, r, isServer) => r.socket_rounds && listOf(r.socket_rounds[isServer ? "server" : "relay"].map((w: Run) => w.cpu_ms_per_message)),
  ],
  [
    "socket rounds: delivery p99 ms, each round",
    (_, r, isServer) => r.socket_rounds && listOf(r.socket_rounds[isServer ? "server" : "relay"].map((w: Run) => w.latency_ms.p99)),
  ],
  [
    "socket rounds: socket writes per message (system calls), each round",
    (_, r, isServer) =>
      r.socket_rounds?.server?.[0]?.socket_writes_per_message !== undefined
        ? listOf(r.socket_rounds[isServer ? "server" : "relay"].map((w: Run) => w.socket_writes_per_message))
        : undefined,
  ],
  [
    "SQL statements / prepares per message",
    (s, _, isServer) => (isServer ? `${s.fan_out.sql_statements_per_message} / ${s.fan_out.sql_prepared_per_message}` : undefined),
  ],
  ["SQLite log file after the sends, MiB", (s) => s.sqlite_log_mib],
  ["memory per live connection, KiB", (s) => s.fan_out.memory_per_connection_kib],
  ["one day: persisted msg/s (relay: answers/s)", (s) => s.one_day.messages_per_s],
  ["one day: CPU ms per message, as fast as they come", (s) => s.one_day.cpu_ms_per_message],
  ["idle sockets: memory per socket, KiB", (s) => s.idle.memory_per_socket_kib],
  [
    "idle sockets: statements in the window (a heartbeat in it)",
    (s, _, isServer) => {
      if (!isServer) return undefined;
      const counts = Object.entries(s.idle.sql_statements_while_idle);
      return counts.length === 0 ? "none" : counts.map(([statement, n]) => `${statement} ${n}`).join(", ");
    },
  ],
];

function renderRun(r: Run): string {
  const s = r.settings;
  const warmup = s.warmup_seconds ? ` (+${s.warmup_seconds} s warm-up)` : "";
  const rounds = r.paired_rounds ? `, then ${r.paired_rounds.server.length} paired rounds` : "";
  const intro =
    `${minuteOf(r.date)} UTC, load ${r.load_average.before.join("/")} → ${r.load_average.after.join("/")} (1/5/15 min), ` +
    `${r.cpus} CPUs, Node ${r.node}. Server: ${engineOf(r)}${(s.processes ?? 1) > 1 ? " processes" : ""}. ${s.devices} devices, ` +
    `${s.rate_per_s} msg/s for ${s.seconds} s${warmup}${rounds}; ${s.clients} clients into one day; ` +
    `${thousands(s.idle_sockets)} idle sockets for ${s.idle_seconds} s.`;
  const rows = metricRows
    .map(([name, get]) => [name, get(r.server, r, true), get(r.relay, r, false)] as const)
    .filter(([, server, relay]) => server !== undefined || relay !== undefined)
    .map(([name, server, relay]) => `| ${name} | ${server ?? NONE} | ${relay ?? NONE} |`);
  const ratios =
    `Server to relay: CPU per message ${ratio(r, "cpu_per_message")}, delivery p99 ${ratio(r, "latency_p99")}, ` +
    (r.socket_rounds
      ? `sent on the socket: CPU per message ${socketRatio(r, "cpu_per_message")}, delivery p99 ${socketRatio(r, "latency_p99")}, `
      : "") +
    `one day ${r.ratios_server_to_relay.one_day_messages_per_s}, idle memory per socket ${r.ratios_server_to_relay.idle_memory_per_socket}.`;
  return `### \`${r.label}\`\n\n${intro}\n\n| | server | relay |\n|---|---|---|\n${rows.join("\n")}\n\n${ratios}\n`;
}

const file = resultsFile(
  { json: JSON_FILE, md: MD_FILE, history: "sync" },
  {
    head: [
      "# Sync benchmark results",
      "",
      "Generated from `sync-results.json` (every figure is there) by `npm run bench:sync`, or by",
      "`npx tsx bench/sync/results.ts` without a run; do not edit by hand. Newest run first: the latest",
      `${GOAL_ROWS} runs' goals and the latest ${DETAILED_RUNS} runs' figures; every run is a line in \`HISTORY.md\`. How the bench`,
      "works and what its goals mean: `README.md`; what each run changed, and what was tried and not kept: `HISTORY.md`.",
      "",
      "Ratios are the server's figure over the bare relay's in the same run: the median (min to max) over the fan-out's",
      "pair and the paired rounds, or the one pair of runs made before paired rounds existed. The machine is shared, so",
      "compare runs made close together at a low load; absolute figures move with the load.",
    ],
    goalsIntro: [
      "CPU per message and delivery p99 at the fan-out as ratios to the relay, sent over HTTP and, since issue 47, as frames",
      "on the live sockets (the relay then also takes them on its sockets); persisted messages/s from 64 clients into",
      "one day; KiB per idle socket and the session writes while idle; anything lost, duplicated or out of order. Load is",
      "the 1-minute load average as the run began.",
    ],
    columns: goalColumns,
    renderRun,
  },
);

export const saveRun = file.save;

if (process.argv[1] === fileURLToPath(import.meta.url)) file.renderAgain();

/**
 * Keeps every labelled `--discussion-members` run in bench/sync-discussion-results.json and renders
 * bench/sync-discussion-results.md from it: the goal (issue 45: an encrypted discussion's CPU per message and delivery
 * p99 no worse than one in clear of the same size, beyond the spread) a row per recent run, then the latest runs'
 * rounds; every run is a line in bench/HISTORY.md. Run directly (`npx tsx bench/sync/discussion-results.ts`) to
 * render the Markdown again from the JSON without a bench run.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./ratios.ts";
import { DETAILED_RUNS, GOAL_ROWS, type GoalColumns, minuteOf, type Run, resultsFile } from "./results-file.ts";

const JSON_FILE = path.join(import.meta.dirname, "../sync-discussion-results.json");
const MD_FILE = path.join(import.meta.dirname, "../sync-discussion-results.md");
const spreadOf = (s: Run) => `${s.median} (${s.min}–${s.max})`;

const setupOf = (r: Run) =>
  `${r.settings.database}${r.settings.redis ? " + redis" : ""}${r.settings.processes > 1 ? ` ×${r.settings.processes}` : ""}, ` +
  `${r.settings.members} members × ${r.settings.member_devices} at ${r.settings.rate_per_s}/s, ${r.settings.rounds} × ${r.settings.seconds} s`;

const cpuOf = (rounds: Run[]) => rounds.map((w) => w.cpu_ms_per_message);
const p99Of = (rounds: Run[]) => rounds.map((w) => w.latency_ms.p99);

/**
 * Met when the room's median over the rounds is within what the discussion in clear itself ranged over (or below):
 * "no worse beyond the spread".
 */
function verdict(room: number[], clear: number[]): string {
  const worst = Math.max(...clear);
  return median(room) <= worst ? "within the spread" : `worse: median ${median(room)} > clear's worst ${worst}`;
}

function problems(r: Run): string {
  const last = (name: string) => r.rounds[name]?.at(-1) ?? {};
  const lost = (last("clear").lost_so_far ?? 0) + (last("room").lost_so_far ?? 0);
  const errors = ["clear", "room"].reduce((n, name) => n + r.rounds[name].reduce((m: number, w: Run) => m + w.send_errors, 0), 0);
  const { duplicates, out_of_order: outOfOrder } = r.totals.server;
  if (lost + errors + duplicates + outOfOrder === 0) return "none";
  return `lost ${lost}, send errors ${errors}, duplicated ${duplicates}, out of order ${outOfOrder}`;
}

const goalColumns: GoalColumns = [
  ["run", (r) => `\`${r.label}\``],
  ["UTC", (r) => minuteOf(r.date)],
  ["load", (r) => r.load_average.before[0]],
  ["setup", setupOf],
  ["CPU ms/msg room / clear", (r) => `${median(cpuOf(r.rounds.room))} / ${median(cpuOf(r.rounds.clear))}`],
  ["room/clear CPU", (r) => spreadOf(r.ratios.room_to_clear.cpu_per_message)],
  ["CPU goal", (r) => verdict(cpuOf(r.rounds.room), cpuOf(r.rounds.clear))],
  ["p99 ms room / clear", (r) => `${median(p99Of(r.rounds.room))} / ${median(p99Of(r.rounds.clear))}`],
  ["room/clear p99", (r) => spreadOf(r.ratios.room_to_clear.latency_p99)],
  ["p99 goal", (r) => verdict(p99Of(r.rounds.room), p99Of(r.rounds.clear))],
  ["room/relay CPU, p99", (r) => `${spreadOf(r.ratios.room_to_relay.cpu_per_message)}, ${spreadOf(r.ratios.room_to_relay.latency_p99)}`],
  ["lost", problems],
];

const listOf = (values: unknown[]) => values.join(", ");

const roundRows: [string, (w: Run[]) => string][] = [
  ["CPU ms per message, each round", (w) => listOf(cpuOf(w))],
  ["delivery p50 ms, each round", (w) => listOf(w.map((x) => x.latency_ms.p50))],
  ["delivery p99 ms, each round", (w) => listOf(p99Of(w))],
  ["delivery max ms, each round", (w) => listOf(w.map((x) => x.latency_ms.max))],
  ["delivered, each round", (w) => listOf(w.map((x) => x.delivered))],
  ["duplicates, each round", (w) => listOf(w.map((x) => x.duplicates))],
  ["lost so far, after each round", (w) => listOf(w.map((x) => x.lost_so_far))],
  ["send errors, each round", (w) => listOf(w.map((x) => x.send_errors))],
  ["socket writes per message, each round", (w) => listOf(w.map((x) => x.socket_writes_per_message))],
  ["load generator busy, cores, each round", (w) => listOf(w.map((x) => x.load_generator_cpu_busy ?? "—"))],
  ["1-minute load as each round began", (w) => listOf(w.map((x) => x.load_1m))],
];

function renderRun(r: Run): string {
  const s = r.settings;
  const intro =
    `${minuteOf(r.date)} UTC, load ${r.load_average.before.join("/")} → ${r.load_average.after.join("/")} (1/5/15 min), ` +
    `${r.cpus} CPUs, Node ${r.node}. ${setupOf(r)} (+${s.warmup_seconds} s warm-up each); members and both discussions ` +
    `made in ${r.setup_s} s. The load generator sealed ${r.sealing.messages} texts ahead of the room's windows: ` +
    `${r.sealing.wall_ms_per_message} ms each (CPU ${r.sealing.cpu_ms_per_message} ms).`;
  const names = ["clear", "room", "relay"];
  const rows = roundRows.map(([name, get]) => `| ${name} | ${names.map((n) => get(r.rounds[n] ?? [])).join(" | ")} |`);
  const ratios =
    `Room to clear: CPU per message ${spreadOf(r.ratios.room_to_clear.cpu_per_message)}, delivery p99 ` +
    `${spreadOf(r.ratios.room_to_clear.latency_p99)}. Room to relay: ${spreadOf(r.ratios.room_to_relay.cpu_per_message)}, ` +
    `${spreadOf(r.ratios.room_to_relay.latency_p99)}. Clear to relay: ${spreadOf(r.ratios.clear_to_relay.cpu_per_message)}, ` +
    `${spreadOf(r.ratios.clear_to_relay.latency_p99)}.`;
  return `### \`${r.label}\`\n\n${intro}\n\n| | clear | room | relay |\n|---|---|---|---|\n${rows.join("\n")}\n\n${ratios}\n`;
}

const file = resultsFile(
  { json: JSON_FILE, md: MD_FILE, history: "sync-discussion" },
  {
    head: [
      "# Sync benchmark results: one discussion of many members",
      "",
      "Generated from `sync-discussion-results.json` (every figure is there) by `npm run bench:sync -- --discussion-members N`,",
      "or by `npx tsx bench/sync/discussion-results.ts` without a run; do not edit by hand. Newest run first: the latest",
      `${GOAL_ROWS} runs' goals and the latest ${DETAILED_RUNS} runs' rounds; every run is a line in \`HISTORY.md\`. How the bench`,
      "works: `README.md` (Sync, one discussion).",
      "",
      "The same members, on the same sockets, in a discussion in clear and in an encrypted one (room), and the bare relay",
      "fanning out to as many sockets; rounds alternate clear and room (each goes first every other round), then the relay.",
      "CPU is the server's per message sent; latency from the send to the frame at each other member's device. Ratios are",
      "of the same round's pair: median (min to max). A goal is met when the room's median over the rounds is no worse than",
      "the worst round of the discussion in clear (issue 45: no worse beyond the spread). The machine is shared: compare",
      "within a run; load is the 1-minute load average as the run began.",
    ],
    goalsIntro: [],
    columns: goalColumns,
    renderRun,
  },
);

export const saveDiscussionRun = file.save;

if (process.argv[1] === fileURLToPath(import.meta.url)) file.renderAgain();

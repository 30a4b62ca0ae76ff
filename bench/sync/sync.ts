/**
 * Daysync's live sync under load, beside a bare `ws` relay doing the same fan-out in the same run, so every figure
 * is also a ratio (the machine may be shared: the load average is recorded with each run).
 * Run: npm run bench:sync [-- --quick] [--devices 1000 --rate 500 --seconds 10 --warmup-seconds 3 --clients 64 --throughput-seconds 5
 * --idle-sockets 10000 --idle-seconds 35 --label current --server-flags="--cpu-prof --cpu-prof-dir=/tmp/prof"]
 * [--processes 2 --database-url postgres://postgres@127.0.0.1:5432/test --redis-url redis://127.0.0.1:6379]
 * [--profile-dir /tmp/prof: a CPU profile of each process over the fan-out's sends (NAME-1) and the first socket round's (NAME-2)]
 * Writes the run under --label in bench/sync-results.json and regenerates bench/sync-results.md.
 * With --discussion-members N [--member-devices 1]: only one discussion of N members, in clear, encrypted and on the relay
 * (discussion.ts; --rate 100, --seconds 10, --warmup-seconds 3, --rounds 3 unless given), written to
 * bench/sync-discussion-results.json and .md instead.
 */
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { API } from "@daysync/shared";
import { serverUsers } from "./accounts.ts";
import { discussionRun } from "./discussion.ts";
import { saveDiscussionRun } from "./discussion-results.ts";
import { type Device, fanOut, idle, sendRound, type Tally, type Target, throughput } from "./load.ts";
import { startMeasured, sumStats } from "./processes.ts";
import { ratio, spread } from "./ratios.ts";
import { saveRun } from "./results.ts";
import { runStamp } from "./results-file.ts";
import { checkServerOptions, profileEnv, type ServerOptions, startServers } from "./servers.ts";

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    devices: { type: "string" },
    rate: { type: "string" },
    seconds: { type: "string" },
    "warmup-seconds": { type: "string" },
    clients: { type: "string" },
    "throughput-seconds": { type: "string" },
    "idle-sockets": { type: "string" },
    "idle-seconds": { type: "string" },
    rounds: { type: "string" },
    label: { type: "string", default: "current" },
    "server-flags": { type: "string", default: "" },
    "profile-dir": { type: "string" },
    processes: { type: "string", default: "1" },
    "database-url": { type: "string" },
    "redis-url": { type: "string" },
    "server-tree": { type: "string" },
    "discussion-members": { type: "string" },
    "member-devices": { type: "string", default: "1" },
  },
});
const quick = flags.quick;
const num = (value: string | undefined, full: number, short: number) => Number(value ?? (quick ? short : full));
const DEVICES = num(flags.devices, 1000, 150);
/** Members of the one discussion of the discussion mode; 0: the sync bench's phases. */
const MEMBERS = Number(flags["discussion-members"] ?? 0);
// Into one discussion each message reaches every member: 100/s to 50 members is 4,900 deliveries a second.
const RATE = num(flags.rate, MEMBERS ? 100 : 500, MEMBERS ? 20 : 100);
const SECONDS = num(flags.seconds, 10, 3);
const WARMUP_SECONDS = num(flags["warmup-seconds"], 3, 1);
const CLIENTS = num(flags.clients, 64, 64);
// Measured sends repeated server, relay, server, relay...: the relay's own CPU per message moves a lot within
// minutes on a shared machine, so one pair alone is a poor ratio.
const ROUNDS = num(flags.rounds, 3, 1);
const THROUGHPUT_SECONDS = num(flags["throughput-seconds"], 5, 2);
const IDLE_SOCKETS = num(flags["idle-sockets"], 10_000, 1000);
// Longer than the server's 30 s heartbeat, so the idle window holds one round of pings.
const IDLE_SECONDS = num(flags["idle-seconds"], 35, 2);
const USERS = Math.ceil(DEVICES / 3);
const serverOptions: ServerOptions = {
  processes: Number(flags.processes),
  databaseUrl: flags["database-url"],
  redisUrl: flags["redis-url"],
  nodeFlags: flags["server-flags"].split(" ").filter(Boolean),
  profileDir: flags["profile-dir"] ? path.resolve(flags["profile-dir"]) : undefined,
  serverTree: flags["server-tree"] ? path.resolve(flags["server-tree"]) : undefined,
  // At most 50 members by default (DEFAULT_MAX_DISCUSSION_MEMBERS): lifted to the members asked for.
  env: MEMBERS ? { DISCUSSION_MAX_MEMBERS: String(Math.max(50, MEMBERS)) } : {},
};
const invalid = checkServerOptions(serverOptions);
if (invalid) {
  console.error(invalid);
  process.exit(2);
}

type RoundResult = Awaited<ReturnType<typeof sendRound>>;

async function main() {
  const loadBefore = os.loadavg();
  const servers = await startServers(serverOptions);
  if (serverOptions.profileDir) mkdirSync(serverOptions.profileDir, { recursive: true });
  const relay = await startMeasured("bench/sync/relay.ts", "/health", profileEnv(serverOptions.profileDir, "relay")).catch(
    async (error: unknown) => {
      await servers.stop();
      throw error;
    },
  );
  try {
    if (MEMBERS) {
      const run = await discussionRun(servers, relay, {
        members: MEMBERS,
        memberDevices: Number(flags["member-devices"]),
        rate: RATE,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        rounds: ROUNDS,
      });
      saveDiscussionRun(flags.label, run);
      console.log(JSON.stringify(run, null, 2));
      return;
    }
    const started = Date.now();
    const processes = servers.processes;
    const at = (i: number) => (processes[i % processes.length] ?? processes[0])?.url ?? "";
    const users = await serverUsers(at(0), USERS, 3);
    console.error(`signed in ${USERS * 3} devices in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const relayUsers = users.map((_, i) => ({ id: `u${i}`, cookies: ["", "", ""] }));
    const targets: Target[] = [
      {
        name: "server",
        stats: async (options) => sumStats(await Promise.all(processes.map((p) => p.stats(options)))),
        profile: (step) => {
          for (const p of processes) p.profile(step);
        },
        users,
        liveUrl: (_, device) => `${at(device).replace("http", "ws")}${API.live}`,
        sendUrl: (k) => at(k),
        sendPath: () => API.messages,
      },
      {
        name: "relay",
        stats: (options) => relay.stats(options),
        profile: (step) => relay.profile(step),
        users: relayUsers,
        sendUrl: () => relay.url,
        liveUrl: (u) => `${relay.url.replace("http", "ws")}/live?user=${u.id}`,
        sendPath: (u) => `/send?user=${u.id}`,
      },
    ];
    const figures: Record<string, Record<string, unknown>> = { server: {}, relay: {} };
    const seqs: Record<string, Map<number, number>> = {};
    const fanOuts: Record<string, { tally: Tally; sent: number; devices: Device[] }> = {};
    const liveSockets: { terminate(): void }[] = [];
    for (const target of targets) {
      console.error(`${target.name}: fan-out`);
      const run = await fanOut(target, { rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
      (figures[target.name] as Record<string, unknown>).fan_out = run.result;
      fanOuts[target.name] = { tally: run.tally, sent: run.sent, devices: run.devices };
      seqs[target.name] = run.tally.lastSeqByUser;
      liveSockets.push(...run.devices.map((d) => d.ws));
      console.error(`${target.name}: ${CLIENTS} clients into one day`);
      (figures[target.name] as Record<string, unknown>).one_day = await throughput(target, CLIENTS, THROUGHPUT_SECONDS);
    }
    // The same rounds with each message sent as a frame on its device's live socket (issue 47), after the HTTP ones.
    const rounds: Record<string, RoundResult[]> = { server: [], relay: [] };
    const socketRounds: Record<string, RoundResult[]> = { server: [], relay: [] };
    for (const road of ["http", "socket"] as const) {
      for (let i = 0; i < ROUNDS; i++) {
        for (const target of targets) {
          console.error(`${target.name}: ${road} round ${i + 1} of ${ROUNDS}`);
          const state = fanOuts[target.name] as { tally: Tally; sent: number; devices: Device[] };
          const result = await sendRound(target, state.tally, {
            rate: RATE,
            seconds: SECONDS,
            first: state.sent,
            road: road === "socket" ? { kind: "socket", devices: state.devices } : { kind: "http" },
            // With --profile-dir: the fan-out's sends over HTTP are the first profile, this round's on the socket the second.
            profile: road === "socket" && i === 0,
          });
          state.sent += result.messages;
          (road === "socket" ? socketRounds : rounds)[target.name]?.push(result);
        }
      }
    }
    // Checkpoints that never catch up let the log grow by every page written (background-checkpoint.ts).
    (figures.server as Record<string, unknown>).sqlite_log_mib = servers.sqliteLogMib();
    for (const target of [...targets].reverse()) {
      console.error(`${target.name}: ${IDLE_SOCKETS} idle sockets`);
      (figures[target.name] as Record<string, unknown>).idle = await idle(
        target,
        IDLE_SOCKETS,
        target.name === "server" ? IDLE_SECONDS * 1000 : 1000,
        seqs[target.name] ?? new Map(),
      );
    }
    for (const ws of liveSockets) ws.terminate();

    type F = {
      fan_out: { cpu_ms_per_message: number; latency_ms: { p50: number; p99: number } };
      one_day: { messages_per_s: number };
      idle: { memory_per_socket_kib: number };
    };
    const s = figures.server as unknown as F;
    const r = figures.relay as unknown as F;
    // The fan-out's pair and each round's, server over relay.
    const pairs = [
      { server: s.fan_out, relay: r.fan_out },
      ...(rounds.server ?? []).map((server, i) => ({ server, relay: (rounds.relay ?? [])[i] as RoundResult })),
    ];
    const socketPairs = (socketRounds.server ?? []).map((server, i) => ({ server, relay: (socketRounds.relay ?? [])[i] as RoundResult }));
    const run = {
      ...runStamp(loadBefore),
      settings: {
        /** Server processes, their database and whether Redis joins them; the relay is always one process. */
        ...servers.setup,
        devices: USERS * 3,
        users: USERS,
        rate_per_s: RATE,
        seconds: SECONDS,
        warmup_seconds: WARMUP_SECONDS,
        clients: CLIENTS,
        idle_sockets: IDLE_SOCKETS,
        idle_seconds: IDLE_SECONDS,
      },
      server: figures.server,
      relay: figures.relay,
      ratios_server_to_relay: {
        cpu_per_message: ratio(s.fan_out.cpu_ms_per_message, r.fan_out.cpu_ms_per_message),
        latency_p50: ratio(s.fan_out.latency_ms.p50, r.fan_out.latency_ms.p50),
        latency_p99: ratio(s.fan_out.latency_ms.p99, r.fan_out.latency_ms.p99),
        one_day_messages_per_s: ratio(s.one_day.messages_per_s, r.one_day.messages_per_s),
        idle_memory_per_socket: ratio(s.idle.memory_per_socket_kib, r.idle.memory_per_socket_kib),
      },
      /** The fan-out's pair and every round's (server, then relay, alternating): each ratio, their median and range. */
      paired_rounds: {
        server: rounds.server,
        relay: rounds.relay,
        cpu_per_message: spread(pairs.map((p) => ratio(p.server.cpu_ms_per_message, p.relay.cpu_ms_per_message))),
        latency_p99: spread(pairs.map((p) => ratio(p.server.latency_ms.p99, p.relay.latency_ms.p99))),
      },
      /** The same rounds sent as frames on the live sockets, server and relay alike (issue 47: CPU ≤ 2×, p99 ≤ 5×). */
      socket_rounds: {
        server: socketRounds.server,
        relay: socketRounds.relay,
        cpu_per_message: spread(socketPairs.map((p) => ratio(p.server.cpu_ms_per_message, p.relay.cpu_ms_per_message))),
        latency_p99: spread(socketPairs.map((p) => ratio(p.server.latency_ms.p99, p.relay.latency_ms.p99))),
      },
    };
    saveRun(flags.label, run);
    console.log(JSON.stringify(run, null, 2));
  } finally {
    await Promise.all([servers.stop(), relay.stop()]);
  }
}

await main();

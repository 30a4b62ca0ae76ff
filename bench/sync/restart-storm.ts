/**
 * A restart's storm (issue 47). DEVICES live clients (`packages/live-client`, the clients the web app and `daysync watch`
 * use, each its own socket) connect to one server process on SQLite; the process is stopped with SIGTERM and started
 * again on the same data and port while every client tries to come back. Then the same with the bare relay, restarted
 * on its port, for the baseline: it takes every socket at once and has nothing to resume.
 * With --processes 2 (PostgreSQL + Redis), the devices are spread over two processes and the first is stopped: its
 * devices move to the second, as behind a load balancer (each new socket of a device goes to the next process).
 * Run: npm run bench:restart [-- --devices 19500 --users 200 --accept-per-second 1000 --idle-seconds 35 --label current]
 *   [--processes 2 --database-url postgres://postgres@127.0.0.1:5432/test --redis-url redis://127.0.0.1:6379]
 * Writes the run under --label in bench/restart-storm-results.json, with the command that made it (see bench/restart-storm.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { LiveClient } from "@daysync/live-client";
import { API, formatStoredDate, formatStoredTime } from "@daysync/shared";
import WebSocket from "ws";
import { freePort } from "../../apps/server/src/testing/free-port.ts";
import { summary } from "./load.ts";
import type { ProbeStats } from "./probe.ts";
import { type Measured, startMeasured } from "./processes.ts";
import { BENCH_ENV, checkServerOptions, type ServerOptions, serverScript, startServers } from "./servers.ts";

const { values: flags } = parseArgs({
  options: {
    // This machine's hard limit of open files is 20,000 per process, for the server and for this process alike.
    devices: { type: "string", default: "19500" },
    users: { type: "string", default: "200" },
    "accept-per-second": { type: "string", default: "1000" },
    // Longer than the server's 30 s heartbeat, so the idle window holds one round of pings.
    "idle-seconds": { type: "string", default: "35" },
    label: { type: "string", default: "current" },
    processes: { type: "string", default: "1" },
    "database-url": { type: "string" },
    "redis-url": { type: "string" },
  },
});
const DEVICES = Number(flags.devices);
const USERS = Number(flags.users);
const ACCEPT_PER_SECOND = flags["accept-per-second"];
const IDLE_SECONDS = Number(flags["idle-seconds"]);
const failoverOptions: ServerOptions = {
  processes: Number(flags.processes),
  databaseUrl: flags["database-url"],
  redisUrl: flags["redis-url"],
  nodeFlags: [],
  env: { LIVE_ACCEPT_PER_SECOND: ACCEPT_PER_SECOND },
};
const invalid = ![1, 2].includes(failoverOptions.processes) ? "--processes: 1 or 2" : checkServerOptions(failoverOptions);
if (invalid) {
  console.error(invalid);
  process.exit(2);
}
/** Loopback source addresses the sockets are spread over (127.0.0.2, …), so this process does not run out of ports. */
const SOURCES = 8;
const RESULTS = path.join(import.meta.dirname, "../restart-storm-results.json");

const round = (n: number, digits = 2) => +n.toFixed(digits);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => round(ms / 1000, 1);

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

async function post(url: string, cookie: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });
}

/** Registers each user and signs in two more devices: 3 sessions a user, which the sockets share. */
async function signIn(url: string): Promise<{ cookies: string[]; userOf: number[] }> {
  const cookies: string[] = [];
  const userOf: number[] = [];
  const cookieOf = (res: Response) => (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  for (let u = 0; u < USERS; u++) {
    const email = `storm${u}@example.com`;
    const password = "bench-password";
    const first = await post(url + API.register, "", { name: "Storm", email, password, confirm_password: password });
    if (!first.ok) throw new Error(`register: ${first.status} ${await first.text()}`);
    cookies.push(cookieOf(first));
    for (let d = 1; d < 3; d++) cookies.push(cookieOf(await post(url + API.login, "", { email, password })));
    userOf.push(u, u, u);
  }
  return { cookies, userOf };
}

/** One device: a live client whose every `message.created` is counted by content, to find anything lost or doubled. */
class Device {
  readonly client: LiveClient;
  position = 0;
  readyAt = 0;
  lostAt = 0;
  readonly counts = new Map<string, number>();
  readonly closes = new Map<number, number>();
  errors = 0;

  /** `urlFor(n)`: where the device's n-th socket goes. */
  constructor(urlFor: (attempt: number) => string, cookie: string, localAddress: string) {
    let attempts = 0;
    this.client = new LiveClient({
      openSocket: () => new WebSocket(urlFor(attempts++), { headers: cookie ? { cookie } : {}, localAddress }),
      position: {
        get: () => this.position,
        set: (seq) => {
          this.position = seq;
        },
      },
      handlers: {
        onEvent: (event) => {
          if (event.kind !== "message.created" || event.message.type !== "text") return;
          this.counts.set(event.message.content, (this.counts.get(event.message.content) ?? 0) + 1);
        },
        onReady: () => {
          this.readyAt = performance.now();
        },
        onLost: ({ code }) => {
          this.lostAt = performance.now();
          this.closes.set(code, (this.closes.get(code) ?? 0) + 1);
        },
        onError: () => void this.errors++,
      },
    });
  }
}

function closesOf(devices: Device[]): Record<string, number> {
  const all: Record<string, number> = {};
  for (const d of devices) for (const [code, n] of d.closes) all[code] = (all[code] ?? 0) + n;
  return all;
}

/** The event loop's delay and the CPU of a process over a storm, from its stats at the end and its CPU at the start. */
const stormLoad = (during: ProbeStats, cpuBefore: number) => ({
  event_loop_delay_ms: { p99: round(during.loop_delay_ms.p99), max: round(during.loop_delay_ms.max) },
  cpu_s: seconds(during.cpu_ms - cpuBefore),
});

/** Until every device has a ready later than `since`: seconds from `since`, and the spread of the devices' times. */
async function allBack(devices: Device[], since: number, timeoutMs: number) {
  await waitUntil("every device back", () => devices.every((d) => d.readyAt > since && d.client.getStatus() === "online"), timeoutMs);
  const times = devices.map((d) => d.readyAt - since);
  return { all_back_s: seconds(Math.max(...times)), back_ms: summary(times) };
}

interface Target {
  name: "server" | "relay";
  start(port: number): Promise<Measured>;
  liveUrl(port: number, device: number): string;
}

const sourceOf = (i: number) => `127.0.0.${2 + (i % SOURCES)}`;

/** All devices started at once until every one is resumed, then everyone idle: memory per device and writes. */
async function connectAndIdle(name: string, devices: Device[], measured: Measured[]) {
  console.error(`${name}: ${DEVICES} devices connecting`);
  const coldStart = performance.now();
  for (const d of devices) d.client.start();
  const cold = await allBack(devices, coldStart, 10 * 60_000);
  const coldCloses = closesOf(devices);
  for (const d of devices) d.closes.clear();
  const idleFrom = await Promise.all(measured.map((m) => m.stats()));
  await sleep(IDLE_SECONDS * 1000);
  const idleTo = await Promise.all(measured.map((m) => m.stats()));
  const writes: string[] = [];
  idleTo.forEach((to, p) => {
    const from = idleFrom[p]?.statements ?? {};
    for (const [key, n] of Object.entries(to.statements)) {
      if (/^(insert|update|delete)/.test(key) && n > (from[key] ?? 0)) writes.push(`${key}: ${n - (from[key] ?? 0)}`);
    }
  });
  const rss = idleTo.reduce((sum, s) => sum + s.rss_bytes, 0);
  const cpuMs = idleTo.reduce((sum, s, p) => sum + s.cpu_ms - (idleFrom[p]?.cpu_ms ?? 0), 0);
  return {
    cold_start: { ...cold, closes: coldCloses },
    idle: {
      seconds: IDLE_SECONDS,
      rss_mib: round(rss / 1024 / 1024, 1),
      memory_per_device_kib: round(rss / 1024 / DEVICES, 1),
      cpu_s: seconds(cpuMs),
      writes,
    },
  };
}

/** One process stopped with SIGTERM and started again on its port while every device tries to come back. */
async function restartStorm(target: Target, cookies: string[], send?: (url: string, tag: string) => Promise<void>) {
  const port = await freePort();
  let measured = await target.start(port);
  const devices = Array.from(
    { length: DEVICES },
    (_, i) => new Device(() => target.liveUrl(port, i), cookies[i % cookies.length] ?? "", sourceOf(i)),
  );
  try {
    const before = await connectAndIdle(target.name, devices, [measured]);
    await send?.(measured.url, "before");

    console.error(`${target.name}: SIGTERM`);
    const stopAt = performance.now();
    await measured.stop();
    const downAt = performance.now();
    measured = await target.start(port);
    const upAt = performance.now();
    // From here the probe's event-loop figures cover the storm only, not the start.
    const atUp = await measured.stats({ gc: false });
    const cpuBefore = atUp.cpu_ms;
    await send?.(measured.url, "after");
    const back = await allBack(devices, stopAt, 10 * 60_000);
    const during = await measured.stats({ gc: false });
    return {
      ...before,
      restart: {
        stop_s: seconds(downAt - stopAt),
        start_s: seconds(upAt - downAt),
        ...back,
        /** From the new process answering its health check until the last device was back. */
        after_up_s: seconds(Math.max(...devices.map((d) => d.readyAt)) - upAt),
        closes: closesOf(devices),
        ...stormLoad(during, cpuBefore),
        // The look-ups the resumes ran (sessions, sequences), batched per event-loop turn.
        reads: readsBetween(atUp.statements, during.statements),
      },
      devices,
    };
  } finally {
    for (const d of devices) d.client.stop();
    await measured.stop();
  }
}

/** Two processes (PostgreSQL + Redis); the first is stopped and its devices move to the second. */
async function failoverStorm(processes: Measured[], cookies: string[], send: (url: string, tag: string) => Promise<void>) {
  const [first, second] = processes;
  if (!first || !second) throw new Error("two processes expected");
  const urls = processes.map((p) => `${p.url.replace("http", "ws")}${API.live}`);
  // Device i's first socket goes to process i % 2, each next one to the other: a load balancer's round robin.
  const devices = Array.from(
    { length: DEVICES },
    (_, i) => new Device((attempt) => urls[(i + attempt) % urls.length] ?? "", cookies[i % cookies.length] ?? "", sourceOf(i)),
  );
  try {
    const before = await connectAndIdle("server", devices, processes);
    await send(first.url, "before");
    const atStop = await second.stats({ gc: false });
    const cpuBefore = atStop.cpu_ms;
    console.error("server: SIGTERM to the first of two processes");
    const stopAt = performance.now();
    await first.stop();
    const downAt = performance.now();
    await send(second.url, "after");
    await waitUntil(
      "every device back",
      () => devices.every((d) => d.client.getStatus() === "online" && d.readyAt > d.lostAt),
      10 * 60_000,
    );
    const during = await second.stats({ gc: false });
    const times = devices.filter((d) => d.lostAt > stopAt).map((d) => d.readyAt - stopAt);
    return {
      ...before,
      failover: {
        stop_s: seconds(downAt - stopAt),
        moved: times.length,
        all_back_s: seconds(Math.max(...times)),
        back_ms: summary(times),
        closes: closesOf(devices),
        ...stormLoad(during, cpuBefore),
        // Round trips of the move: the look-ups its resumes ran (sessions, sequences), batched per event-loop turn.
        reads: readsBetween(atStop.statements, during.statements),
      },
      devices,
    };
  } finally {
    for (const d of devices) d.client.stop();
  }
}

/** The reads a process ran between two of its stats, by what they read. */
function readsBetween(from: Record<string, number>, to: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(to)
      .filter(([key, n]) => key.startsWith("select") && n > (from[key] ?? 0))
      .map(([key, n]) => [key, n - (from[key] ?? 0)]),
  );
}

/** Every device must have had its user's "before" and "after" exactly once, and nothing of another user. */
function tallyMessages(devices: Device[], expected: (i: number) => string[]) {
  let lost = 0;
  let doubled = 0;
  let foreign = 0;
  devices.forEach((d, i) => {
    const want = expected(i);
    for (const content of want) if (!d.counts.has(content)) lost += 1;
    for (const [content, n] of d.counts) {
      if (!want.includes(content)) foreign += 1;
      else if (n > 1) doubled += n - 1;
    }
  });
  return { expected_per_device: 2, lost, doubled, foreign };
}

async function main() {
  const loadBefore = os.loadavg();
  const root = mkdtempSync(path.join(os.tmpdir(), "daysync-storm-"));
  const dataDir = path.join(root, "data");
  mkdirSync(dataDir);
  try {
    const serverEnv = { ...BENCH_ENV, DATA_DIR: dataDir, LIVE_SOCKETS_PER_SESSION: "100000", LIVE_ACCEPT_PER_SECOND: ACCEPT_PER_SECOND };
    const server: Target = {
      name: "server",
      start: (port) => startMeasured(serverScript(), "/api/health", serverEnv, [], port),
      liveUrl: (port) => `ws://127.0.0.1:${port}${API.live}`,
    };
    const relay: Target = {
      name: "relay",
      start: (port) => startMeasured("bench/sync/relay.ts", "/health", {}, [], port),
      liveUrl: (port, i) => `ws://127.0.0.1:${port}/live?user=u${i % USERS}`,
    };
    const messageOf = (u: number, tag: string) => `${tag} ${u}`;
    /** One message per user, from its first device, at once; each device must get its user's exactly once. */
    const sendAll = (cookies: string[]) => async (url: string, tag: string) => {
      const now = new Date();
      const date = formatStoredDate(now);
      const time = formatStoredTime(now);
      await Promise.all(
        Array.from({ length: USERS }, async (_, u) => {
          const message = { id: crypto.randomUUID(), content: messageOf(u, tag), date, time };
          const res = await post(`${url}${API.messages}`, cookies[u * 3] ?? "", message);
          if (res.status !== 201) throw new Error(`send: ${res.status} ${await res.text()}`);
        }),
      );
    };

    let serverFigures: Record<string, unknown>;
    let sessions: number;
    if (failoverOptions.processes === 2) {
      const servers = await startServers(failoverOptions);
      try {
        const { cookies, userOf } = await signIn(servers.processes[0]?.url ?? "");
        sessions = cookies.length;
        const { devices, ...figures } = await failoverStorm(servers.processes, cookies, sendAll(cookies));
        const expected = (i: number) => ["before", "after"].map((tag) => messageOf(userOf[i % cookies.length] ?? 0, tag));
        serverFigures = { ...servers.setup, ...figures, messages: tallyMessages(devices, expected) };
      } finally {
        await servers.stop();
      }
    } else {
      // Users sign in on a first start of the server; the storm's own starts find them in the data folder.
      const first = await server.start(await freePort());
      const { cookies, userOf } = await signIn(first.url).finally(() => first.stop());
      sessions = cookies.length;
      const { devices, ...figures } = await restartStorm(server, cookies, sendAll(cookies));
      const expected = (i: number) => ["before", "after"].map((tag) => messageOf(userOf[i % cookies.length] ?? 0, tag));
      serverFigures = { processes: 1, database: "sqlite", ...figures, messages: tallyMessages(devices, expected) };
    }
    const { devices: _, ...relayFigures } = await restartStorm(
      relay,
      Array.from({ length: DEVICES }, () => ""),
    );

    const run = {
      date: new Date().toISOString(),
      command: `npm run bench:restart -- ${process.argv.slice(2).join(" ")}`.trim(),
      node: process.version,
      cpus: os.cpus().length,
      load_average: { before: loadBefore.map((l) => round(l)), after: os.loadavg().map((l) => round(l)) },
      settings: { devices: DEVICES, users: USERS, sessions, accept_per_second: Number(ACCEPT_PER_SECOND) },
      server: serverFigures,
      relay: relayFigures,
    };
    const all = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, "utf8")) as Record<string, unknown>) : {};
    all[flags.label] = run;
    writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
    console.log(JSON.stringify(run, null, 2));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

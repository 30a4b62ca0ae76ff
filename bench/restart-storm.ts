/**
 * A restart's storm (issue 47). DEVICES live clients (`packages/live-client`, the clients the web app and `daysync watch`
 * use, each its own socket) connect to one server process on SQLite; the process is stopped with SIGTERM and started
 * again on the same data and port while every client tries to come back. Then the same with the bare relay, restarted
 * on its port, for the baseline: it takes every socket at once and has nothing to resume.
 * Run: npm run bench:restart [-- --devices 19500 --users 200 --accept-per-second 1000 --label current]
 * Writes the run under --label in bench/restart-storm-results.json (see restart-storm.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { LiveClient } from "@daysync/live-client";
import { API, formatStoredDate, formatStoredTime } from "@daysync/shared";
import WebSocket from "ws";
import { freePort } from "../apps/server/src/testing/free-port.ts";
import { summary } from "./sync/load.ts";
import { type Measured, startMeasured } from "./sync/processes.ts";
import { BENCH_ENV } from "./sync/servers.ts";

const { values: flags } = parseArgs({
  options: {
    // This machine's hard limit of open files is 20,000 per process, for the server and for this process alike.
    devices: { type: "string", default: "19500" },
    users: { type: "string", default: "200" },
    "accept-per-second": { type: "string", default: "1000" },
    // Longer than the server's 30 s heartbeat, so the idle window holds one round of pings.
    "idle-seconds": { type: "string", default: "35" },
    label: { type: "string", default: "current" },
  },
});
const DEVICES = Number(flags.devices);
const USERS = Number(flags.users);
const ACCEPT_PER_SECOND = flags["accept-per-second"];
const IDLE_SECONDS = Number(flags["idle-seconds"]);
/** Loopback source addresses the sockets are spread over (127.0.0.2, …), so this process does not run out of ports. */
const SOURCES = 8;
const RESULTS = path.join(import.meta.dirname, "restart-storm-results.json");

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
  readonly counts = new Map<string, number>();
  readonly closes = new Map<number, number>();
  errors = 0;

  constructor(url: string, cookie: string, localAddress: string) {
    this.client = new LiveClient({
      openSocket: () => new WebSocket(url, { headers: cookie ? { cookie } : {}, localAddress }),
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
        onLost: ({ code }) => void this.closes.set(code, (this.closes.get(code) ?? 0) + 1),
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

async function storm(target: Target, cookies: string[], send?: (port: number, tag: string) => Promise<void>) {
  const port = await freePort();
  let measured = await target.start(port);
  const devices = Array.from(
    { length: DEVICES },
    (_, i) => new Device(target.liveUrl(port, i), cookies[i % cookies.length] ?? "", `127.0.0.${2 + (i % SOURCES)}`),
  );
  try {
    console.error(`${target.name}: ${DEVICES} devices connecting`);
    const coldStart = performance.now();
    for (const d of devices) d.client.start();
    const cold = await allBack(devices, coldStart, 10 * 60_000);
    const coldCloses = closesOf(devices);
    for (const d of devices) d.closes.clear();
    // Every device connected and idle: the process's whole memory per device, and what it writes meanwhile.
    const idleFrom = await measured.stats();
    await sleep(IDLE_SECONDS * 1000);
    const idleTo = await measured.stats();
    const writes = Object.entries(idleTo.statements)
      .filter(([key, n]) => /^(insert|update|delete)/.test(key) && n > (idleFrom.statements[key] ?? 0))
      .map(([key, n]) => `${key}: ${n - (idleFrom.statements[key] ?? 0)}`);
    const idle = {
      seconds: IDLE_SECONDS,
      rss_mib: round(idleTo.rss_bytes / 1024 / 1024, 1),
      memory_per_device_kib: round(idleTo.rss_bytes / 1024 / DEVICES, 1),
      cpu_s: seconds(idleTo.cpu_ms - idleFrom.cpu_ms),
      writes,
    };
    await send?.(port, "before");

    console.error(`${target.name}: SIGTERM`);
    const stopAt = performance.now();
    await measured.stop();
    const downAt = performance.now();
    measured = await target.start(port);
    const upAt = performance.now();
    // From here the probe's event-loop figures cover the storm only, not the start.
    await measured.stats({ gc: false });
    const cpuBefore = (await measured.stats({ gc: false })).cpu_ms;
    await send?.(port, "after");
    const back = await allBack(devices, stopAt, 10 * 60_000);
    const during = await measured.stats({ gc: false });
    return {
      cold_start: { ...cold, closes: coldCloses },
      idle,
      restart: {
        stop_s: seconds(downAt - stopAt),
        start_s: seconds(upAt - downAt),
        ...back,
        /** From the new process answering its health check until the last device was back. */
        after_up_s: seconds(Math.max(...devices.map((d) => d.readyAt)) - upAt),
        closes: closesOf(devices),
        event_loop_delay_ms: { p99: round(during.loop_delay_ms.p99), max: round(during.loop_delay_ms.max) },
        cpu_s: seconds(during.cpu_ms - cpuBefore),
      },
      devices,
    };
  } finally {
    for (const d of devices) d.client.stop();
    await measured.stop();
  }
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
      start: (port) => startMeasured("apps/server/src/main.ts", "/api/health", serverEnv, [], port),
      liveUrl: (port) => `ws://127.0.0.1:${port}${API.live}`,
    };
    const relay: Target = {
      name: "relay",
      start: (port) => startMeasured("bench/sync/relay.ts", "/health", {}, [], port),
      liveUrl: (port, i) => `ws://127.0.0.1:${port}/live?user=u${i % USERS}`,
    };

    // Users sign in on a first start of the server; the storm's own starts find them in the data folder.
    const first = await server.start(await freePort());
    const { cookies, userOf } = await signIn(first.url).finally(() => first.stop());
    const messageOf = (u: number, tag: string) => `${tag} ${u}`;
    /** One message per user, from its first device, at once; each device must get its user's exactly once. */
    const send = async (port: number, tag: string) => {
      const now = new Date();
      const date = formatStoredDate(now);
      const time = formatStoredTime(now);
      await Promise.all(
        Array.from({ length: USERS }, async (_, u) => {
          const res = await post(`http://127.0.0.1:${port}${API.messages}`, cookies[u * 3] ?? "", {
            id: crypto.randomUUID(),
            content: messageOf(u, tag),
            date,
            time,
          });
          if (res.status !== 201) throw new Error(`send: ${res.status} ${await res.text()}`);
        }),
      );
    };

    const serverRun = await storm(server, cookies, send);
    const expected = (i: number) => ["before", "after"].map((tag) => messageOf(userOf[i % cookies.length] ?? 0, tag));
    let lost = 0;
    let doubled = 0;
    let foreign = 0;
    serverRun.devices.forEach((d, i) => {
      const want = expected(i);
      for (const content of want) if (!d.counts.has(content)) lost += 1;
      for (const [content, n] of d.counts) {
        if (!want.includes(content)) foreign += 1;
        else if (n > 1) doubled += n - 1;
      }
    });
    const relayRun = await storm(
      relay,
      Array.from({ length: DEVICES }, () => ""),
    );
    const { devices: _s, ...serverFigures } = serverRun;
    const { devices: _r, ...relayFigures } = relayRun;

    const run = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      load_average: { before: loadBefore.map((l) => round(l)), after: os.loadavg().map((l) => round(l)) },
      settings: { devices: DEVICES, users: USERS, sessions: cookies.length, accept_per_second: Number(ACCEPT_PER_SECOND) },
      server: { ...serverFigures, messages: { expected_per_device: 2, lost, doubled, foreign } },
      relay: relayFigures,
      ratios_server_to_relay: {
        all_back: round(serverFigures.restart.all_back_s / Math.max(0.1, relayFigures.restart.all_back_s)),
      },
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

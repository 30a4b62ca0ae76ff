/**
 * Event-loop delay of the server while DEVICES devices resume from 0 over a CHANGES-change log, against the
 * same figure while they are connected but idle. The real server runs as its own process with a probe
 * preloaded (`support/event-loop-probe.ts`) that measures its loop with `monitorEventLoopDelay`; the change
 * log is written straight into its SQLite file (factory), and this process plays the devices. It also times
 * `GET /api/health` every 10 ms in both phases: what any other request waits, seen from outside.
 * Run: npm run bench:resume  (DEVICES=10, CHANGES=10000, IDLE_MS=3000, LABEL=current; SERVER_FLAGS="--cpu-prof"
 * passes flags to the server process, e.g. to profile it).
 * Writes the run under LABEL in bench/live-resume-results.json.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { API, type DateMessages, formatStoredDate, formatStoredTime, type ServerLiveMessage, type User } from "@daysync/shared";
import WebSocket from "ws";
import { openDatabase } from "../apps/server/src/db/database.ts";
import { seedMessageChanges } from "../apps/server/src/testing/change-log-factory.ts";
import { freePort } from "../apps/server/src/testing/free-port.ts";
import type { LoopDelay } from "./support/event-loop-probe.ts";

const DEVICES = Number(process.env.DEVICES ?? 10);
const CHANGES = Number(process.env.CHANGES ?? 10_000);
const IDLE_MS = Number(process.env.IDLE_MS ?? 3000);
const LABEL = process.env.LABEL ?? "current";
const root = path.resolve(import.meta.dirname, "..");
const RESULTS = path.join(import.meta.dirname, "live-resume-results.json");

const round = (ms: number) => +ms.toFixed(2);
function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: round(sorted.at(-1) ?? 0) };
}

/** The production server with the event-loop probe, on a fresh data folder. */
async function startServer(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const probe = path.join(import.meta.dirname, "support/event-loop-probe.ts");
  const child = spawn(
    process.execPath,
    [...(process.env.SERVER_FLAGS ?? "").split(" ").filter(Boolean), "--import", "tsx", "--import", probe, "apps/server/src/main.ts"],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        LOGIN_RATE_LIMIT_MAX: "1000",
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ; ) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    if (Date.now() > deadline) throw new Error("server did not start within 30 s");
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function post<T>(url: string, pathname: string, body: unknown, cookie = ""): Promise<{ body: T; cookie: string }> {
  const res = await fetch(url + pathname, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${pathname}: ${res.status}`);
  return { body: (await res.json()) as T, cookie: (res.headers.get("set-cookie") ?? cookie).split(";")[0] ?? "" };
}

interface DeviceResult {
  events: number;
  inOrder: boolean;
  /** seq of `ready`, or -1 for `reset`. */
  ready: number;
  ms: number;
}

/** Sends resume from 0 and counts until ready (or reset); checks every seq follows the one before. */
function resume(ws: WebSocket, started: number): Promise<DeviceResult> {
  return new Promise((resolve) => {
    let events = 0;
    let inOrder = true;
    ws.on("message", (raw) => {
      const message = JSON.parse(String(raw)) as ServerLiveMessage;
      if (message.type === "event") {
        events += 1;
        inOrder &&= message.seq === events;
      } else if (message.type === "ready" || message.type === "reset") {
        resolve({ events, inOrder, ready: message.type === "ready" ? message.seq : -1, ms: round(performance.now() - started) });
      }
    });
    ws.send(JSON.stringify({ type: "resume", since: 0 }));
  });
}

async function main() {
  const loadBefore = os.loadavg()[0] ?? 0;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "daysync-bench-"));
  const { url, child } = await startServer(dataDir);
  /** "start" resolves once the server says it is measuring; "stop" with its figures. */
  const loopDelay = (command: "start" | "stop") =>
    new Promise<LoopDelay | undefined>((resolve) => {
      child.once("message", (m) => resolve(command === "stop" ? (m as LoopDelay) : undefined));
      child.send(command);
    });
  try {
    const account = { name: "Bench", email: "bench@example.com", password: "bench-password", confirm_password: "bench-password" };
    const first = await post<{ user: User }>(url, API.register, account);
    const cookies = [first.cookie];
    while (cookies.length < DEVICES)
      cookies.push((await post(url, API.login, { email: account.email, password: account.password })).cookie);
    const now = new Date();
    const text = { id: crypto.randomUUID(), content: "bench", date: formatStoredDate(now), time: formatStoredTime(now) };
    const sent = await post<{ day: DateMessages }>(url, API.messages, text, first.cookie);

    const db = await openDatabase({ databaseFile: path.join(dataDir, "daysync.sqlite") });
    const userId = first.body.user.id;
    const current = Number((await db.selectFrom("users").select("seq").where("id", "=", userId).executeTakeFirstOrThrow()).seq);
    await seedMessageChanges(db, userId, sent.body.day.id, CHANGES - current, Date.now());
    await db.destroy();

    const sockets = await Promise.all(
      cookies.map(
        (cookie) =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(`${url.replace("http", "ws")}${API.live}`, { headers: { cookie } });
            ws.once("open", () => resolve(ws));
            ws.once("error", reject);
          }),
      ),
    );

    const phases: Record<string, unknown> = {};
    for (const phase of ["idle", "resume"] as const) {
      const healthMs: number[] = [];
      let probing = true;
      await loopDelay("start");
      const started = performance.now();
      const probe = (async () => {
        while (probing) {
          const start = performance.now();
          await (await fetch(`${url}/api/health`)).arrayBuffer();
          healthMs.push(performance.now() - start);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      let devices: DeviceResult[] = [];
      if (phase === "resume") devices = await Promise.all(sockets.map((ws) => resume(ws, started)));
      else await new Promise((r) => setTimeout(r, IDLE_MS));
      const durationMs = round(performance.now() - started);
      probing = false;
      await probe;
      phases[phase] = {
        duration_ms: durationMs,
        server_event_loop_delay_ms: await loopDelay("stop"),
        health_latency_ms: summary(healthMs),
        ...(phase === "resume"
          ? {
              all_complete_in_order: devices.every((d) => d.events === CHANGES && d.inOrder && d.ready === CHANGES),
              answers: [
                ...new Set(devices.map((d) => (d.ready < 0 ? `reset after ${d.events} events` : `ready after ${d.events} events`))),
              ],
              per_device_ready_ms: summary(devices.map((d) => d.ms)),
            }
          : {}),
      };
    }
    for (const ws of sockets) ws.close();

    const run = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      /** 1-minute load average before and after: on a busy machine every figure here grows. */
      load_average: [round(loadBefore), round(os.loadavg()[0] ?? 0)],
      devices: DEVICES,
      changes: CHANGES,
      ...phases,
      target: "resume.server_event_loop_delay_ms.p99 < 20",
    };
    const all = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, "utf8")) as Record<string, unknown>) : {};
    all[LABEL] = run;
    writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
    console.log(JSON.stringify(run, null, 2));
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

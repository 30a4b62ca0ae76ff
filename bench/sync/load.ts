/**
 * The load, the same for the server and the bare relay: devices with a resumed live socket, messages at a fixed
 * rate with send-to-delivery latency on the user's other devices (or, into a discussion, on every other member's),
 * many clients sending into one day, idle sockets.
 */
import { Agent, request } from "node:http";
import { formatStoredDate, formatStoredTime, type ServerLiveMessage } from "@daysync/shared";
import WebSocket from "ws";
import type { ProbeStats } from "./probe.ts";

export interface BenchUser {
  /** The user's id on the server, a made-up name on the relay. */
  id: string;
  /** One session cookie per device (empty strings on the relay). */
  cookies: string[];
}

export interface Target {
  /** "server" and "relay"; with --discussion-members, "clear" and "room" (the server's two discussions) and "relay". */
  name: string;
  /** CPU, memory and statements, summed over the target's processes; `{ gc: false }` where only CPU and statements are read (see `Measured.stats`). */
  stats(options?: { gc?: boolean }): Promise<ProbeStats>;
  /** Starts or stops the CPU profile of the target's processes (with --profile-dir). */
  profile(step: "start" | "stop"): void;
  users: BenchUser[];
  /** The live socket of device `device` (0, 1, 2) of `user`: device d sits on process d % N. */
  liveUrl(user: BenchUser, device: number): string;
  /** Base URL for the k-th send: the processes take turns. */
  sendUrl(k: number): string;
  sendPath(user: BenchUser): string;
  /** Set for a discussion: each message goes to every device of every user (the members), not the sender's own only. */
  discussion?: boolean;
  /**
   * The body of send number k when the target makes its own (an encrypted discussion's sealed text), made ahead by
   * `prepare` before the window whose CPU counts; unset: a text in clear.
   */
  message?(k: number): { id: string; body: string };
  prepare?(first: number, count: number): Promise<void>;
}

const round = (n: number, digits = 2) => +n.toFixed(digits);

export function summary(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: round(sorted.at(-1) ?? 0) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const HTTP = { kind: "http" } as const;

/** POSTs JSON over a keep-alive agent; resolves with the status (0 for a network error). */
function post(agent: Agent, url: string, path: string, cookie: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url + path,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), cookie } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

function messageBody(id: string): string {
  const now = new Date();
  return JSON.stringify({ id, content: `bench ${id}`, date: formatStoredDate(now), time: formatStoredTime(now) });
}

function clearMessage() {
  const id = crypto.randomUUID();
  return { id, body: messageBody(id) };
}

interface Sent {
  at: number;
  user: number;
  device: number;
  deliveredTo: Set<number>;
}

export interface Device {
  user: number;
  index: number;
  /** Unique over the target's devices. */
  key: number;
  ws: WebSocket;
  lastSeq: number;
}

/** Everything the devices saw, checked as it arrives. */
export class Tally {
  sent = new Map<string, Sent>();
  latencies: number[] = [];
  delivered = 0;
  duplicates = 0;
  outOfOrder = 0;
  senderEchoes = 0;
  /** Sends over a socket that were answered `send_failed`. */
  socketSendFailures = 0;
  frames = 0;
  lastSeqByUser = new Map<number, number>();

  onFrame(device: Device, raw: string) {
    this.frames += 1;
    const message = JSON.parse(raw) as ServerLiveMessage;
    if (message.type === "ready" || message.type === "reset") {
      device.lastSeq = message.seq;
      return;
    }
    if (message.type === "send_failed") this.socketSendFailures += 1;
    if (message.type !== "event") return;
    if (message.seq !== device.lastSeq + 1) this.outOfOrder += 1;
    device.lastSeq = Math.max(device.lastSeq, message.seq);
    this.lastSeqByUser.set(device.user, Math.max(this.lastSeqByUser.get(device.user) ?? 0, message.seq));
    if (message.event.kind !== "message.created" && message.event.kind !== "discussion.message.created") return;
    const sent = this.sent.get(message.event.message.id);
    if (!sent) return;
    if (sent.user === device.user && sent.device === device.index) {
      this.senderEchoes += 1;
      return;
    }
    if (sent.deliveredTo.has(device.key)) {
      this.duplicates += 1;
      return;
    }
    sent.deliveredTo.add(device.key);
    this.delivered += 1;
    this.latencies.push(performance.now() - sent.at);
  }
}

/** Opens a live socket, resumes from `since` and waits for ready. */
function openLive(url: string, cookie: string, since: number, onFrame?: (raw: string) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: cookie ? { cookie } : {} });
    ws.once("open", () => ws.send(JSON.stringify({ type: "resume", since })));
    const first = (raw: WebSocket.RawData) => {
      const text = String(raw);
      onFrame?.(text);
      if (/"type":"(ready|reset)"/.test(text)) {
        if (!onFrame) ws.off("message", first);
        resolve(ws);
      }
    };
    ws.on("message", first);
    ws.once("error", reject);
    ws.once("close", (code) => reject(new Error(`live socket closed with ${code}`)));
  });
}

async function inBatches<T>(items: T[], size: number, work: (item: T, i: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map((item, j) => work(item, i + j)));
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

function statementsBetween(before: ProbeStats, after: ProbeStats) {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.statements)) {
    const d = v - (before.statements[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

export interface FanOutOptions {
  rate: number;
  seconds: number;
  /**
   * Seconds of the same sends before the measured ones, on both targets: a process's first seconds under load are
   * spent compiling its hot code (V8 optimises it on helper threads), which a server running for days does not pay
   * per message. Their deliveries are still checked for loss, duplicates and order; their latency and CPU are not counted.
   */
  warmupSeconds: number;
}

/** How the measured sends go: POSTs, or `send` frames on the sending device's live socket (issue 47). */
export type Road = { kind: "http" } | { kind: "socket"; devices: Device[] };

/**
 * Sends `count` messages at `rate` per second, from send number `first` on (users in turn, their devices in turn).
 * Over the socket, a refusal comes back as a `send_failed` frame, counted by the tally instead.
 */
async function sendAtRate(target: Target, tally: Tally, agent: Agent, rate: number, first: number, count: number, road: Road = HTTP) {
  let errors = 0;
  const sockets = new Map(road.kind === "socket" ? road.devices.map((d) => [`${d.user}:${d.index}`, d.ws] as const) : []);
  const users = target.users;
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  for (let k = first; k < first + count; ) {
    const due = first + Math.min(count, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; k < due; k++) {
      const u = k % users.length;
      const user = users[u] as BenchUser;
      const device = Math.floor(k / users.length) % user.cookies.length;
      const { id, body } = target.message?.(k) ?? clearMessage();
      tally.sent.set(id, { at: performance.now(), user: u, device, deliveredTo: new Set() });
      const socket = sockets.get(`${u}:${device}`);
      if (socket) {
        socket.send(`{"type":"send","ref":"${k}","body":${body}}`);
        continue;
      }
      inFlight.push(
        post(agent, target.sendUrl(k), target.sendPath(user), user.cookies[device] ?? "", body).then((status) => {
          if (status !== 201 && status !== 200) errors += 1;
        }),
      );
    }
    await sleep(2);
  }
  await Promise.all(inFlight);
  return errors;
}

/** Waits (at most 10 s) until every device other than the sender has each message sent so far. */
async function deliveries(target: Target, tally: Tally): Promise<number> {
  const everyDevice = target.users.reduce((n, u) => n + u.cookies.length, 0);
  const audience = (user: number) => (target.discussion ? everyDevice : (target.users[user]?.cookies.length ?? 1)) - 1;
  const expected = [...tally.sent.values()].reduce((n, s) => n + audience(s.user), 0);
  for (const deadline = performance.now() + 10_000; tally.delivered < expected && performance.now() < deadline; ) await sleep(20);
  return expected;
}

/**
 * One measured window: `count` sends from send number `first` on and their deliveries, with the target's CPU and
 * statements read (without a GC) on either side and, with `profile`, its CPU profile taken over the window.
 */
async function measuredSends(
  target: Target,
  tally: Tally,
  agent: Agent,
  window: { rate: number; first: number; count: number; profile?: boolean; road?: Road },
) {
  tally.latencies = [];
  await target.prepare?.(window.first, window.count);
  const before = await target.stats({ gc: false });
  if (window.profile) target.profile("start");
  const started = performance.now();
  const cpuStart = cpuNow();
  const failuresBefore = tally.socketSendFailures;
  const errors = await sendAtRate(target, tally, agent, window.rate, window.first, window.count, window.road);
  const expected = await deliveries(target, tally);
  if (window.profile) target.profile("stop");
  const wallMs = performance.now() - started;
  const after = await target.stats({ gc: false });
  const refused = tally.socketSendFailures - failuresBefore;
  return { before, after, errors: errors + refused, expected, wallMs, loadGeneratorCpuMs: cpuNow() - cpuStart };
}

/** Opens and resumes every device's live socket, each frame counted by `tally`. */
export async function connect(target: Target, tally: Tally): Promise<Device[]> {
  const devices: Device[] = [];
  await inBatches(
    target.users.flatMap((user, u) => user.cookies.map((cookie, index) => ({ user, u, index, cookie }))),
    100,
    async ({ user, u, index, cookie }, key) => {
      const device: Device = { user: u, index, key, ws: undefined as unknown as WebSocket, lastSeq: 0 };
      device.ws = await openLive(target.liveUrl(user, index), cookie, 0, (raw) => tally.onFrame(device, raw));
      devices.push(device);
    },
  );
  return devices;
}

/** Connects every device, sends at a fixed rate and measures delivery; returns the sockets for later phases. */
export async function fanOut(target: Target, options: FanOutOptions) {
  const tally = new Tally();
  const before = await target.stats();
  const devices = await connect(target, tally);
  const connected = await target.stats();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const warmup = Math.round(options.rate * options.warmupSeconds);
  const warmupErrors = await sendAtRate(target, tally, agent, options.rate, 0, warmup);
  await deliveries(target, tally);
  const total = Math.round(options.rate * options.seconds);
  const {
    before: warmed,
    after,
    errors,
    expected,
    wallMs,
    loadGeneratorCpuMs,
  } = await measuredSends(target, tally, agent, {
    rate: options.rate,
    first: warmup,
    count: total,
    profile: true,
  });
  agent.destroy();
  return {
    devices,
    tally,
    /** How many messages were sent, warm-up included: where a later `sendRound` goes on numbering. */
    sent: warmup + total,
    result: {
      devices: devices.length,
      messages: total,
      wall_s: round(wallMs / 1000),
      send_errors: warmupErrors + errors,
      delivered: tally.delivered,
      expected,
      lost: expected - tally.delivered,
      duplicates: tally.duplicates,
      out_of_order: tally.outOfOrder,
      /** Frames that reached the sending device itself. */
      sender_echoes: tally.senderEchoes,
      frames_received: tally.frames,
      latency_ms: summary(tally.latencies),
      warmup_messages: warmup,
      cpu_ms_per_message: round((after.cpu_ms - warmed.cpu_ms) / total, 3),
      socket_writes_per_message: round((after.socket_writes - warmed.socket_writes) / total, 2),
      /** How busy the target's processes were over the sending, summed (1 = one core). */
      cpu_busy: round((after.cpu_ms - warmed.cpu_ms) / wallMs, 3),
      load_generator_cpu_busy: round(loadGeneratorCpuMs / wallMs, 3),
      /** How late the target's event loop ran while sending (p99, worst; ms): its stalls. */
      event_loop_delay_ms: { p99: round(after.loop_delay_ms.p99), max: round(after.loop_delay_ms.max) },
      memory_per_connection_kib: round((connected.rss_bytes - before.rss_bytes) / devices.length / 1024, 1),
      heap_per_connection_kib: round((connected.heap_used_bytes - before.heap_used_bytes) / devices.length / 1024, 1),
      sql_statements_per_message: round(Object.values(statementsBetween(warmed, after)).reduce((a, b) => a + b, 0) / total, 2),
      sql_prepared_per_message: round((after.prepared - warmed.prepared) / total, 2),
      sql_statements: statementsBetween(warmed, after),
    },
  };
}

/**
 * One more measured window of sends over the devices `fanOut` connected and warmed, numbered on from `first`: CPU
 * per message and delivery latency, for comparing the server and the relay in alternating rounds.
 */
export async function sendRound(
  target: Target,
  tally: Tally,
  options: { rate: number; seconds: number; first: number; road?: Road; profile?: boolean },
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(options.rate * options.seconds);
  const counted = { delivered: tally.delivered, duplicates: tally.duplicates };
  const { before, after, errors, expected, wallMs, loadGeneratorCpuMs } = await measuredSends(target, tally, agent, {
    rate: options.rate,
    first: options.first,
    count: total,
    road: options.road,
    profile: options.profile,
  });
  agent.destroy();
  return {
    messages: total,
    send_errors: errors,
    /** Messages sent so far (fan-out and rounds) that some device still lacks: 0 when nothing is lost. */
    lost_so_far: expected - tally.delivered,
    /** Deliveries and duplicates counted during this round (a late one of an earlier round included). */
    delivered: tally.delivered - counted.delivered,
    duplicates: tally.duplicates - counted.duplicates,
    latency_ms: summary(tally.latencies),
    cpu_ms_per_message: round((after.cpu_ms - before.cpu_ms) / total, 3),
    socket_writes_per_message: round((after.socket_writes - before.socket_writes) / total, 2),
    /** The load generator's own CPU over the window (1 = one core): near 1, it is the bottleneck, not the target. */
    load_generator_cpu_busy: round(loadGeneratorCpuMs / wallMs, 3),
  };
}

/** `clients` loops send one after another into one user's day for `seconds`. */
export async function throughput(target: Target, clients: number, seconds: number) {
  const user = target.users[0] as BenchUser;
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const before = await target.stats({ gc: false });
  let ok = 0;
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        const status = await post(
          agent,
          target.sendUrl(c),
          target.sendPath(user),
          user.cookies[c % user.cookies.length] ?? "",
          messageBody(crypto.randomUUID()),
        );
        if (status === 201) ok += 1;
        else errors += 1;
      }
    }),
  );
  const wallMs = performance.now() - started;
  const after = await target.stats({ gc: false });
  agent.destroy();
  return {
    clients,
    persisted: ok,
    errors,
    messages_per_s: round(ok / (wallMs / 1000), 0),
    cpu_ms_per_message: round((after.cpu_ms - before.cpu_ms) / Math.max(1, ok), 3),
  };
}

/** Opens `count` more sockets over the users' devices, each resumed where its device is, and leaves them idle. */
export async function idle(target: Target, count: number, idleMs: number, lastSeqByUser: Map<number, number>) {
  const before = await target.stats();
  const sockets: WebSocket[] = [];
  const slots = target.users.flatMap((user, u) => user.cookies.map((cookie, device) => ({ user, u, device, cookie })));
  await inBatches(Array.from({ length: count }), 200, async (_, i) => {
    const slot = slots[i % slots.length] as (typeof slots)[number];
    sockets.push(await openLive(target.liveUrl(slot.user, slot.device), slot.cookie, lastSeqByUser.get(slot.u) ?? 0));
  });
  const open = await target.stats();
  await sleep(idleMs);
  const after = await target.stats();
  const result = {
    sockets: sockets.length,
    memory_per_socket_kib: round((open.rss_bytes - before.rss_bytes) / sockets.length / 1024, 1),
    heap_per_socket_kib: round((open.heap_used_bytes - before.heap_used_bytes) / sockets.length / 1024, 1),
    idle_s: round(idleMs / 1000, 1),
    idle_cpu_ms: round(after.cpu_ms - open.cpu_ms, 1),
    /** Statements run while idle: the heartbeat's pongs, if they write. */
    sql_statements_while_idle: statementsBetween(open, after),
  };
  for (const ws of sockets) ws.terminate();
  return result;
}

/** The measured processes, the server's (one or more) and the bare relay: each its own child with the probe preloaded. */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { buildSync } from "esbuild";
import { freePort } from "../../apps/server/src/testing/free-port.ts";
import type { ProbeStats } from "./probe.ts";

export interface Measured {
  url: string;
  child: ChildProcess;
  /** CPU, statements and memory; `{ gc: false }` skips the full GC before the memory is read (see the probe). */
  stats(options?: { gc?: boolean }): Promise<ProbeStats>;
  /** Starts or stops the probe's CPU profile (only with BENCH_PROFILE_DIR in the process's environment). */
  profile(step: "start" | "stop"): void;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, "../..");

let probeFile: string | undefined;

/** The probe as one plain JavaScript file, so it loads into a bundled server without tsx; built once per bench run. */
function probeBundle(): string {
  if (probeFile) return probeFile;
  const outfile = path.join(root, "bench/.tmp/probe.mjs");
  buildSync({
    entryPoints: [path.join(import.meta.dirname, "probe.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
  });
  probeFile = outfile;
  return outfile;
}

/**
 * Starts `script` (relative to the repo root) with the probe and waits until `healthPath` answers; on `port` when given
 * (a restart on the port its clients know), else a free one.
 */
export async function startMeasured(
  script: string,
  healthPath: string,
  env: NodeJS.ProcessEnv,
  flags: string[] = [],
  port?: number,
): Promise<Measured> {
  port ??= await freePort();
  // A bundle (the server as `npm run serve` runs it) runs without tsx, whose loader would add its own memory.
  const loader = script.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, ["--expose-gc", ...flags, ...loader, "--import", probeBundle(), script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (
      await fetch(url + healthPath).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`${script} did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    child,
    stats: ({ gc = true } = {}) =>
      new Promise<ProbeStats>((resolve) => {
        child.once("message", (m) => resolve(m as ProbeStats));
        child.send(gc ? "stats" : "stats-no-gc");
      }),
    profile: (step) => child.send(`profile-${step}`),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** One set of figures for several processes of one target: CPU time, memory and statements summed. */
export function sumStats(all: ProbeStats[]): ProbeStats {
  const statements: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.statements)) statements[k] = (statements[k] ?? 0) + v;
  const sum = (get: (s: ProbeStats) => number) => all.reduce((n, s) => n + get(s), 0);
  return {
    cpu_ms: sum((s) => s.cpu_ms),
    rss_bytes: sum((s) => s.rss_bytes),
    heap_used_bytes: sum((s) => s.heap_used_bytes),
    socket_writes: sum((s) => s.socket_writes),
    prepared: sum((s) => s.prepared),
    statements,
    // The worst process's: a stall in any of them delays the messages it serves.
    loop_delay_ms: {
      p99: Math.max(0, ...all.map((s) => s.loop_delay_ms.p99)),
      max: Math.max(0, ...all.map((s) => s.loop_delay_ms.max)),
    },
  };
}

/** The server as its own operating-system process (main.ts, as deployed), for tests of several processes. */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "./free-port.ts";
import { serverBundle } from "./server-bundle.ts";
import { lastOutput, serverStartTimeoutMs } from "./start-wait.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");

export interface ServerProcess {
  url: string;
  /** What it wrote to standard output so far, when started with `captureOutput`. */
  output(): string;
  /** What it wrote to standard error so far (passed through as well). */
  errors(): string;
  /** SIGTERM: a clean stop. SIGKILL: the process dies at once, as in a crash. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

/** What the suite's own environment must not hand to a child: its database and Redis are given explicitly. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, REDIS_URL: _redis, REDIS_PREFIX: _prefix, ...rest } = process.env;
  return rest;
}

/** Every server this test process started and has not seen exit: none outlives it, whatever its tests did. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** `captureOutput`: keep standard output for `output()` instead of passing it through. */
export async function startServerProcess(env: Record<string, string>, options: { captureOutput?: boolean } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [serverBundle()], {
    cwd: repoRoot,
    env: {
      ...inheritedEnv(),
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      REGISTRATION: "open",
      ...env,
    },
    stdio: ["ignore", options.captureOutput ? "pipe" : "inherit", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let output = "";
  let errors = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
    process.stderr.write(chunk);
  });
  const url = `http://127.0.0.1:${port}`;
  const timeoutMs = serverStartTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}${lastOutput(output + errors)}`);
    if (
      await fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start within ${Math.round(timeoutMs / 1000)} s${lastOutput(output + errors)}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    output: () => output,
    errors: () => errors,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
}

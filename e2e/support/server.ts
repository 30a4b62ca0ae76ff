/** Starts the real Daysync server (built app, temporary SQLite file) as its own process. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../apps/server/src/testing/free-port.ts";
import { serverBundle } from "../../apps/server/src/testing/server-bundle.ts";
import { lastOutput, serverStartTimeoutMs } from "../../apps/server/src/testing/start-wait.ts";

const root = path.resolve(import.meta.dirname, "../..");

export interface RunningServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Every server this test process started and has not seen exit: none outlives it, whatever its tests did. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** `env.PORT` chooses the port (a test whose identity provider must know the callback address first). */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-e2e-"));
  const child: ChildProcess = spawn(process.execPath, [serverBundle()], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      WEB_DIST: path.join(root, "apps/web/dist"),
      LOG_LEVEL: "warn",
      REGISTER_RATE_LIMIT_MAX: "10000",
      // Tests sign up as many people as they need; tests of REGISTRATION set it.
      REGISTRATION: "open",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  // Passed through as before, and kept to say why when the server does not start.
  let output = "";
  for (const [stream, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    stream?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      to.write(chunk);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  // Longer while the machine is busy (issue 43): a test run beside a build once stopped here at 30 s.
  const timeoutMs = serverStartTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  const giveUp = (why: string) => {
    // Never left running: a server that did not start in time is ended with its data.
    child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    return new Error(`${why}${lastOutput(output)}`);
  };
  for (;;) {
    if (child.exitCode !== null) throw giveUp(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw giveUp(`server did not start within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    dataDir,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

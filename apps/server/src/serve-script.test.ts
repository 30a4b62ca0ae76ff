/**
 * `npm run serve`, which `npm start` runs the same way after its build: the server's bundle that `npm run build`
 * makes, with glibc's allocator told to give back what each password hash took (issue 47, docs/deploy.md "Memory").
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./testing/free-port.ts";
import { serverStartTimeoutMs } from "./testing/start-wait.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
let dataDir: string;
let npm: ChildProcess;
let port: number;
let output = "";

/** The environment of the running node process of `script` that was given PORT=port (not npm's shell around it). */
function environmentOf(script: string): Map<string, string> | undefined {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (path.basename(command[0] ?? "") !== "node" || !command.at(-1)?.endsWith(script)) continue;
      const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
      const env = new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
      if (env.get("PORT") === String(port)) return env;
    } catch {
      // A process that ended meanwhile, or one not ours to read.
    }
  }
  return undefined;
}

beforeAll(async () => {
  // What `npm run build` does for the server, so this file also runs on its own after an edit.
  const build = spawnSync(process.execPath, ["build.mjs"], { cwd: path.join(repoRoot, "apps/server"), encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
  dataDir = mkdtempSync(path.join(tmpdir(), "daysync-serve-"));
  port = await freePort();
  const { DATABASE_URL: _database, REDIS_URL: _redis, MALLOC_MMAP_THRESHOLD_: _malloc, ...env } = process.env;
  // Its own process group, so that the stop below reaches npm, its shell and the server alike.
  npm = spawn("npm", ["run", "--silent", "serve"], {
    cwd: repoRoot,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  npm.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  npm.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (const deadline = Date.now() + serverStartTimeoutMs(); ; ) {
    const up = await fetch(`http://127.0.0.1:${port}${API.health}`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm run serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 150));
  }
});

afterAll(async () => {
  if (npm?.pid && npm.exitCode === null) {
    const exited = new Promise((r) => npm.once("exit", r));
    process.kill(-npm.pid, "SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run serve", () => {
  it("runs the bundle the build made, which answers and says where it runs", async () => {
    expect(environmentOf("apps/server/dist/server/main.mjs")).toBeDefined();
    for (const deadline = Date.now() + 10_000; !output.includes("Daysync is running at") && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(output).toContain(`Daysync is running at http://127.0.0.1:${port}`);
  });

  it("runs it in production with glibc's mmap threshold fixed at 1 MiB", () => {
    const env = environmentOf("apps/server/dist/server/main.mjs");
    expect(env?.get("NODE_ENV")).toBe("production");
    expect(env?.get("MALLOC_MMAP_THRESHOLD_")).toBe("1048576");
  });
});

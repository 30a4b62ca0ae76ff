/** Runs the real `daysync` binary as a child process, the way a person's shell would, with its own config directory. */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { cliBundle } from "./cli-bundle.ts";

/** The command as a bundle: starting it costs no TypeScript compile, which every test pays many times over. */
export const BIN = cliBundle();

/** How long a process may take to print what a test waits for, unless the test says. */
const WAIT_MS = 30_000;

/**
 * Every folder a test file makes lives under one, removed after all its tests (`scratch-cleanup.ts`). The
 * worker's next file shares this module (isolate: false in vitest.config.ts), so the folder is made again when needed.
 */
const scratch = mkdtempSync(path.join(tmpdir(), "daysync-cli-tests-"));
export const tempDir = (name: string) => {
  mkdirSync(scratch, { recursive: true });
  return mkdtempSync(path.join(scratch, `${name}-`));
};

/** The command's processes that have not exited yet (a test that fails, or forgets, leaves one running). */
const running = new Set<ChildProcessWithoutNullStreams>();

/** How long a process has to end on SIGTERM before it is killed. */
const END_MS = 5_000;

/** Ends a process and waits for its exit: SIGTERM, then SIGKILL if it is still there after END_MS. */
async function end(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), END_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * Ends the command's processes still running, then removes the file's scratch folders: a process still running after
 * the folder went wrote its config there again, and left the folder in /tmp.
 */
export async function removeTempDirs(): Promise<void> {
  await Promise.all([...running].map(end));
  rmSync(scratch, { recursive: true, force: true });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A terminal of its own: a config directory, a server, and environment variables for each run. */
export class Terminal {
  readonly configDir = tempDir("config");
  constructor(
    public server: string,
    readonly env: Record<string, string> = {},
  ) {}

  private environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    // No display: the clipboard is what the test says it is. No DAYSYNC_* from the shell running the tests.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("DAYSYNC_") && !["DISPLAY", "WAYLAND_DISPLAY"].includes(k)),
    );
    return { ...inherited, DAYSYNC_CONFIG_DIR: this.configDir, DAYSYNC_SERVER: this.server, ...this.env, ...extra };
  }

  /** Starts `daysync ARGS`; the caller reads and ends it. */
  spawn(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliProcess {
    const child = spawn(process.execPath, [BIN, ...args], { env: this.environment(options.env), cwd: options.cwd });
    running.add(child);
    child.once("exit", () => running.delete(child));
    return new CliProcess(child);
  }

  /** Runs `daysync ARGS` to the end, `input` on its standard input (closed right away when there is none). */
  async run(args: string[], options: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
    const cli = this.spawn(args, options);
    cli.child.stdin.end(options.input ?? "");
    const code = await cli.exited;
    return { code, stdout: cli.stdout, stderr: cli.stderr };
  }
}

export class CliProcess {
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (chunk: Buffer) => {
      this.stdout += chunk.toString();
      for (const w of this.waiters) w();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
      for (const w of this.waiters) w();
    });
    this.exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  }

  /**
   * Resolves with the first match of `pattern` in standard output (or error, with `stream`), failing after `timeoutMs`
   * (30 s: a first command on a loaded machine spends over 10 s starting, before it prints anything).
   */
  waitFor(pattern: RegExp, options: { stream?: "stdout" | "stderr"; timeoutMs?: number } = {}): Promise<RegExpMatchArray> {
    const stream = options.stream ?? "stdout";
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this[stream].match(pattern);
        if (!match) return false;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(match);
        return true;
      };
      const waiter = () => void check();
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(`no ${pattern} in ${stream} after ${options.timeoutMs ?? WAIT_MS} ms; stdout: ${this.stdout}\nstderr: ${this.stderr}`),
        );
      }, options.timeoutMs ?? WAIT_MS);
      if (!check()) this.waiters.push(waiter);
    });
  }

  /** Lines of standard output parsed as JSON (for --json). */
  jsonLines<T = Record<string, unknown>>(): T[] {
    return this.stdout
      .split("\n")
      .filter((line) => line.trim().startsWith("{"))
      .map((line) => JSON.parse(line) as T);
  }

  kill(signal: NodeJS.Signals = "SIGTERM") {
    this.child.kill(signal);
    return this.exited;
  }
}

/** Waits until `condition` holds, at most `timeoutMs`; `what` says what was seen when it did not. */
export async function until(condition: () => boolean, what: () => string = () => "", timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Issue 42, points 6 and 7: what another device chose (its name, a sealed file's name, a text) never drives this
 * terminal, and never stops `watch --exec`. A device signed in by password and never approved names itself with
 * OSC 52 (ESC ] 52 ; c ; … BEL: "write this to the clipboard"); the server refuses that now, so the name is also
 * put in the database as one stored before the fix. The key holder seals texts and file names with control
 * characters in them, which the server cannot see. Every command's output is read as bytes: no ESC, BEL or other
 * C0/C1 control reaches the terminal, while `--json` keeps the exact values and `clip` copies the exact text.
 */
import { execFile, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { DEVICES_API, type DevicesResponse } from "@daysync/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SESSION_CACHE_MS } from "../../server/src/modules/accounts/sessions.repository.ts";
import { Device, startTestServer, type TestServer } from "../../server/src/testing/test-server.ts";
import type { ListedMessage } from "../src/commands/list.ts";
import type { WatchedMessage } from "../src/commands/watch.ts";
import { BIN, type CliProcess, removeTempDirs, type Terminal, tempDir, until } from "./cli-process.ts";
import { startXvfb } from "./desktop.ts";
import { type KeyHolder, keyHolder, pairedTerminal, sendSealed, sendSealedFile } from "./key-holder.ts";
import { PASSWORD } from "./sign-in.ts";

/** OSC 52: a terminal that honours it puts "rm -rf ~" (base64) on the clipboard. */
const OSC_52 = "\u001b]52;c;cm0gLXJmIH4K\u0007";
/** The same in C1: OSC as one character (U+009D), ended by ST (U+009C); and CSI (U+009B) to recolour. */
const C1 = "\u009d52;c;cm0gLXJmIH4K\u009c\u009b31m";
const NAME = `Phone${OSC_52}`;

let server: TestServer;
let holder: KeyHolder;
let terminal: Terminal;
beforeAll(async () => {
  server = await startTestServer();
  holder = await keyHolder(server.url, "eve@example.com");
  terminal = await pairedTerminal(server.url, holder);
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});
// A device signed out by the terminal makes it rotate the key at once: the key holder seals under the epoch it finds.
beforeEach(() => holder.sync());

/**
 * Output that is safe to show: besides line breaks and tabs (and the carriage return a terminal puts before each
 * line break), no C0 control, no DEL and no C1 control, ESC and BEL above all.
 */
function expectInert(output: string | Buffer, what: string) {
  const bytes = typeof output === "string" ? Buffer.from(output) : output;
  expect(bytes.includes(0x1b), `${what} holds ESC: ${JSON.stringify(bytes.toString())}`).toBe(false);
  expect(bytes.includes(0x07), `${what} holds BEL: ${JSON.stringify(bytes.toString())}`).toBe(false);
  const text = bytes.toString("utf8").replaceAll("\r\n", "\n");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there.
  expect(text, what).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

/** Runs `daysync ARGS` in a pseudo-terminal (util-linux `script`), as a person's terminal does; answers its bytes. */
function runInTerminal(args: string[]): Promise<Buffer> {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      env: { ...process.env, DAYSYNC_CONFIG_DIR: terminal.configDir, DAYSYNC_SERVER: terminal.server, TERM: "xterm" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

/** A device of the account signed in by password, never approved: it holds no key. */
async function lockedDevice(): Promise<{ device: Device; id: string }> {
  const device = new Device(server.url);
  await device.login("eve@example.com", PASSWORD);
  const own = (await device.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current);
  return { device, id: own?.id ?? "" };
}

/**
 * A name as an older server stored it, before names were checked: on the session and on its messages; the clock
 * moves past the server's session cache, so what the device sends next carries it.
 */
async function storedName(sessionId: string, name: string) {
  await server.db.updateTable("sessions").set({ name }).where("id", "=", sessionId).execute();
  await server.db.updateTable("messages").set({ device_name: name }).where("device_id", "=", sessionId).execute();
  server.clock.advance(SESSION_CACHE_MS + 1);
}

const holderSessionId = async () =>
  (await holder.device.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";

/** Reads until `done` says so, at most `timeoutMs`; answers the last reading. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("names, file names and texts from another device never drive the terminal", () => {
  it("a locked device is refused an OSC 52 name, and one stored before is printed escaped by devices and devices rm", async () => {
    const locked = await lockedDevice();
    const renamed = await locked.device.request("PATCH", DEVICES_API.one(locked.id), { name: NAME });
    expect(renamed.status).toBe(400);
    await storedName(locked.id, NAME);

    const devices = await terminal.run(["devices"]);
    expect(devices.code, devices.stderr).toBe(0);
    expectInert(devices.stdout, "devices");
    expect(devices.stdout).toContain("Phone\\x1b]52;c;cm0gLXJmIH4K\\x07");
    const json = await terminal.run(["devices", "--json"]);
    expect((JSON.parse(json.stdout) as DevicesResponse["devices"]).map((d) => d.name)).toContain(NAME);
    expectInert(json.stdout, "devices --json");

    const removed = await terminal.run(["devices", "rm", locked.id]);
    expect(removed.code, removed.stderr).toBe(0);
    expectInert(removed.stdout + removed.stderr, "devices rm");
    expect(removed.stdout).toContain("Signed out Phone\\x1b]52;");
  });

  it("devices in a real terminal emulator (tmux, set-clipboard on): the OSC 52 name writes no paste buffer and shows escaped", async () => {
    const locked = await lockedDevice();
    await storedName(locked.id, NAME);
    const tmux = promisify(execFile);
    const socket = `daysync-osc52-${process.pid}-${Date.now()}`;
    // tmux honours OSC 52 from a pane by writing a paste buffer; a dead pane stays to be read.
    const config = path.join(tempDir("tmux"), "tmux.conf");
    writeFileSync(config, "set -s set-clipboard on\nset -g remain-on-exit on\n");
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("DAYSYNC_") && k !== "TMUX")),
      DAYSYNC_CONFIG_DIR: terminal.configDir,
      DAYSYNC_SERVER: terminal.server,
      TERM: "xterm",
    };
    const run = (...args: string[]) => tmux("/usr/bin/tmux", ["-L", socket, ...args], { env, timeout: 10_000 });
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
    let socketPath = "";
    try {
      await run(
        "-f",
        config,
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "250",
        "-y",
        "40",
        `${[process.execPath, BIN, "devices"].map(quote).join(" ")}; echo "daysync exited $?"`,
      );
      socketPath = (await run("display-message", "-p", "#{socket_path}")).stdout.trim();
      // Bounded wait for `daysync devices` to end in its pane (the shell there says how).
      const pane = await poll(
        async () => (await run("capture-pane", "-p", "-J", "-t", "t")).stdout,
        (shown) => /daysync exited \d+/.test(shown),
        "daysync devices to end in tmux",
        45_000,
      );
      expect(pane).toContain("daysync exited 0");
      // No paste buffer: tmux answers "no buffers" and fails.
      const buffer = await run("show-buffer").then(
        (res) => res.stdout,
        () => "",
      );
      expect(buffer).toBe("");
      expect(pane).toContain("Phone\\x1b]52;c;cm0gLXJmIH4K\\x07");

      // The same terminal does honour the raw sequence: the check above could fail.
      await run("new-window", "-t", "t", `printf '${OSC_52.replace("\u001b", "\\033").replace("\u0007", "\\007")}'`);
      const raw = await poll(
        () =>
          run("show-buffer").then(
            (res) => res.stdout,
            () => "",
          ),
        (buffer) => buffer !== "",
        "tmux to honour a raw OSC 52",
        // As long as the first wait: CI beside another build once took more than 10 s.
        45_000,
      );
      expect(raw).toBe("rm -rf ~\n");
    } finally {
      await run("kill-server").catch(() => undefined);
      // tmux leaves its socket file behind: removed once the server is gone.
      await poll(
        () =>
          run("has-session").then(
            () => false,
            () => true,
          ),
        (gone) => gone,
        "the tmux server to end",
        5_000,
      ).catch(() => undefined);
      if (socketPath) rmSync(socketPath, { force: true });
    }
    expect((await terminal.run(["devices", "rm", locked.id])).code).toBe(0);
  });

  it("ls, search, get, watch and their errors escape sealed texts and file names; --json keeps them exact", async () => {
    await storedName(await holderSessionId(), `Laptop${C1}`);
    const text = `hello ${OSC_52} and ${C1} end\nsecond line`;
    const fileName = `report${OSC_52}${C1}.txt`;
    const watching = terminal.spawn(["watch"]);
    await watching.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    const textId = await sendSealed(holder, text, server.clock.now());
    const fileId = await sendSealedFile(holder, fileName, Buffer.from("the file"), server.clock.now());
    await watching.waitFor(/report.*\(file; download it/, { timeoutMs: 30_000 });
    await watching.kill();
    expectInert(watching.stdout + watching.stderr, "watch");
    expect(watching.stdout).toContain("hello \\x1b]52;c;cm0gLXJmIH4K\\x07 and \\x9d52;c;cm0gLXJmIH4K\\x9c\\x9b31m end\nsecond line");

    const ls = await terminal.run(["ls"]);
    expect(ls.code, ls.stderr).toBe(0);
    expectInert(ls.stdout + ls.stderr, "ls");
    expect(ls.stdout).toContain("Laptop\\x9d52;");
    const lsJson = await terminal.run(["ls", "--json"]);
    expectInert(lsJson.stdout, "ls --json");
    const listed = JSON.parse(lsJson.stdout) as ListedMessage[];
    expect(listed.map((m) => (m.type === "text" ? m.content : m.filename)).sort()).toEqual([text, fileName].sort());
    expect(listed.map((m) => m.device?.name)).toEqual([`Laptop${C1}`, `Laptop${C1}`]);

    const search = await terminal.run(["search", "hello"]);
    expect(search.code, search.stderr).toBe(0);
    expectInert(search.stdout + search.stderr, "search");
    expect(search.stdout).toContain(textId);

    const shown = await runInTerminal(["get", textId]);
    expectInert(shown, "get in a terminal");
    expect(shown.toString()).toContain("hello \\x1b]52;c;cm0gLXJmIH4K\\x07");
    // To a pipe, the exact text: a script reads what was sent.
    const piped = await terminal.run(["get", textId]);
    expect(piped.stdout).toBe(text);

    const work = tempDir("escapes");
    const saved = await terminal.run(["get", fileId], { cwd: work });
    expect(saved.code, saved.stderr).toBe(0);
    expectInert(saved.stdout + saved.stderr, "get of a file");
    const again = await terminal.run(["get", fileId], { cwd: work });
    expect(again.code).not.toBe(0);
    expectInert(again.stdout + again.stderr, "get's error");
    expect(again.stderr).toContain("already exists");
  });

  it("clip copies the exact text into the clipboard and prints the sender's name escaped", async () => {
    const desktop = await startXvfb();
    let clip: CliProcess | undefined;
    try {
      await storedName(await holderSessionId(), `Laptop${OSC_52}`);
      clip = terminal.spawn(["clip", "--receive-only"], { env: desktop.env });
      await clip.waitFor(/Syncing the clipboard with[\s\S]*Connected\./, { stream: "stderr", timeoutMs: 30_000 });
      const text = `copy ${OSC_52} this`;
      await sendSealed(holder, text, server.clock.now());
      const running = clip;
      await until(
        () => running.stderr.includes("Copied a text from"),
        () => running.stderr,
      );
      expect(await desktop.paste()).toBe(text);
      expectInert(clip.stdout + clip.stderr, "clip");
      expect(clip.stderr).toContain("Copied a text from Laptop\\x1b]52;c;cm0gLXJmIH4K\\x07");
    } finally {
      await clip?.kill();
      await desktop.stop();
    }
  });
});

describe("watch --exec and another device's file names (point 7)", () => {
  it("a sealed file named with a NUL runs --exec with the name cleaned, and watch goes on to the next message", async () => {
    const work = tempDir("exec");
    const log = path.join(work, "names.log");
    writeFileSync(log, "");
    const watching = terminal.spawn(["watch", "--exec", `printf '%s|' "$DAYSYNC_MESSAGE_FILENAME" >> '${log}'; cat > /dev/null`]);
    await watching.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    await sendSealedFile(holder, "a\u0000b\u001b[2Jc.txt", Buffer.from("bytes"), server.clock.now());
    await sendSealed(holder, "after the file", server.clock.now());
    await watching.waitFor(/after the file/, { timeoutMs: 30_000 });
    await until(
      () => readFileSync(log, "utf8").split("|").length >= 3,
      () => `${readFileSync(log, "utf8")} ${watching.stderr}`,
    );
    expect(watching.child.exitCode).toBeNull();
    // The file's name cleaned, and the text after it (no file name) ran it too, in whichever order they came.
    expect(readFileSync(log, "utf8").split("|").sort()).toEqual(["", "", "a_b_[2Jc.txt"]);
    expectInert(watching.stdout + watching.stderr, "watch --exec");
    expect(await watching.kill()).toBe(0);
  });

  it("an --exec that cannot be spawned is reported for that message, and the next message runs it again", async () => {
    const work = tempDir("exec-fail");
    const log = path.join(work, "ran.log");
    writeFileSync(log, "");
    const watching = terminal.spawn(["watch", "--json", "--exec", `cat >> '${log}'; echo >> '${log}'`]);
    await watching.waitFor(/Watching for new messages/, { stream: "stderr", timeoutMs: 30_000 });
    // Out of file descriptors: the child's standard input cannot be made, so spawn fails (EMFILE).
    const pid = watching.child.pid ?? 0;
    const open = readdirSync(`/proc/${pid}/fd`).length;
    const limit = spawnSyncOut("prlimit", ["--pid", String(pid), "--nofile", "--output", "SOFT,HARD", "--noheadings"]);
    const hard = limit.trim().split(/\s+/)[1] ?? "1048576";
    spawnSyncOut("prlimit", ["--pid", String(pid), `--nofile=${open}:${hard}`]);
    await sendSealed(holder, "not run", server.clock.now());
    await watching.waitFor(/could not run for message/, { stream: "stderr", timeoutMs: 30_000 });
    spawnSyncOut("prlimit", ["--pid", String(pid), `--nofile=${hard}:${hard}`]);
    await sendSealed(holder, "run again", server.clock.now());
    await until(
      () => readFileSync(log, "utf8").includes("run again\n"),
      () => `${readFileSync(log, "utf8")} ${watching.stderr}`,
    );
    expect(watching.child.exitCode).toBeNull();
    expect(readFileSync(log, "utf8")).toBe("run again\n");
    expect(watching.jsonLines<WatchedMessage>().map((m) => m.content)).toEqual(["not run", "run again"]);
    expect(await watching.kill()).toBe(0);
  });
});

function spawnSyncOut(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

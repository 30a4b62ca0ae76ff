/**
 * Real display servers for the clipboard tests: Xvfb (X11, with xclip) and a headless sway (Wayland, with
 * wl-clipboard), started by the tests themselves; and a stand-in password manager that owns the X11 clipboard
 * with the concealed mark, as KeePassXC does.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { tempDir } from "./cli-process.ts";

export interface Desktop {
  /** DISPLAY or WAYLAND_DISPLAY (and XDG_RUNTIME_DIR) for the processes that use it. */
  env: Record<string, string>;
  copy(text: string): Promise<void>;
  paste(): Promise<string>;
  stop(): Promise<void>;
}

const missing = (tools: string[]) => tools.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);

/** The tools a test needs, or an error naming the Debian packages (.ci/run installs them). */
export function requireTools(tools: string[], packages: string) {
  const absent = missing(tools);
  if (absent.length > 0) throw new Error(`${absent.join(", ")} missing: install them with apt-get install -y ${packages}`);
}

function runTool(
  command: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    // Copy tools fork a child that keeps serving the clipboard: wait for the exit, not for the pipes.
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ["pipe", input === undefined ? "pipe" : "ignore", "ignore"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.stdin?.on("error", () => {});
    child.on(input === undefined ? "close" : "exit", (code) => resolve({ code, out }));
    child.stdin?.end(input ?? "");
  });
}

/**
 * The copy tools return before their background child has taken the clipboard (xclip's request is sent when that
 * child first waits for events): a copy is done when the clipboard reads back as it.
 */
async function landed(paste: () => Promise<string>, text: string, tool: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await paste()) === text) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${tool} did not take the clipboard`);
}

const stopProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

export async function startXvfb(): Promise<Desktop> {
  requireTools(["Xvfb", "xclip"], "xvfb xclip");
  // -displayfd: Xvfb picks a free display number and writes it to fd 3 once it accepts connections.
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "320x240x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  const number = await new Promise<string>((resolve, reject) => {
    let text = "";
    const fd3 = xvfb.stdio[3] as NodeJS.ReadableStream;
    fd3.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.trim());
    });
    xvfb.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
  const env = { DISPLAY: `:${number}` };
  const paste = async () => (await runTool("xclip", ["-selection", "clipboard", "-out"], env)).out;
  return {
    env,
    async copy(text) {
      const ran = await runTool("xclip", ["-selection", "clipboard", "-in"], env, text);
      if (ran.code !== 0) throw new Error(`xclip -in failed with ${ran.code}`);
      await landed(paste, text, "xclip");
    },
    paste,
    async stop() {
      // The X server goes even when the stand-in password manager never got connected.
      await closeOwner(env.DISPLAY).catch(() => {});
      await stopProcess(xvfb);
    },
  };
}

/**
 * sway with the headless backend. It refuses to run as root, so as root it runs as nobody, in a runtime folder
 * of its own; root's wl-copy and wl-paste can still reach its socket.
 */
export async function startSway(): Promise<Desktop> {
  requireTools(["sway", "wl-copy", "wl-paste"], "sway wl-clipboard");
  const runtime = tempDir("wayland");
  const config = path.join(runtime, "config");
  writeFileSync(config, "");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(runtime, 65534, 65534);
    chmodSync(runtime, 0o700);
    chmodSync(path.dirname(runtime), 0o755);
  }
  const env = {
    XDG_RUNTIME_DIR: runtime,
    WLR_BACKENDS: "headless",
    WLR_LIBINPUT_NO_DEVICES: "1",
    WLR_RENDERER: "pixman",
    WAYLAND_DISPLAY: "",
    DISPLAY: "",
  };
  const command = asRoot ? "setpriv" : "sway";
  const args = [...(asRoot ? ["--reuid=65534", "--regid=65534", "--clear-groups", "sway"] : []), "-c", config];
  const sway = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  sway.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  // sway names its socket wayland-N; find it once the compositor is up.
  const socket = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    const look = () => {
      const found = spawnSync("sh", ["-c", `ls '${runtime}' | grep -E '^wayland-[0-9]+$' | head -1`])
        .stdout.toString()
        .trim();
      if (found) return resolve(found);
      if (sway.exitCode !== null || Date.now() - started > 15_000) return reject(new Error(`sway did not start: ${log}`));
      setTimeout(look, 100);
    };
    look();
  });
  const clientEnv = { XDG_RUNTIME_DIR: runtime, WAYLAND_DISPLAY: socket };
  const paste = async () => (await runTool("wl-paste", ["--no-newline"], clientEnv)).out;
  return {
    env: clientEnv,
    async copy(text) {
      const ran = await runTool("wl-copy", [], clientEnv, text);
      if (ran.code !== 0) throw new Error(`wl-copy failed with ${ran.code}`);
      await landed(paste, text, "wl-copy");
    },
    paste,
    stop: () => stopProcess(sway),
  };
}

interface X11Client {
  AllocID(): number;
  CreateWindow(...args: unknown[]): void;
  InternAtom(onlyIfExists: boolean, name: string, callback: (error: unknown, atom: number) => void): void;
  SetSelectionOwner(owner: number, selection: number, time: number): void;
  ChangeProperty(mode: number, wid: number, name: number, type: number, units: number, data: Buffer | number[]): void;
  SendEvent(destination: number, propagate: number, mask: number, event: Record<string, unknown>): void;
  on(event: "event", listener: (event: Record<string, number | string>) => void): void;
  on(event: "error", listener: (error: unknown) => void): void;
  terminate(): void;
}

/** One connection per display: the library mixes up InternAtom answers on a second connection of the process. */
const owners = new Map<string, Promise<{ own(text: string): void; close(): void }>>();

async function clipboardOwner(display: string) {
  const x11 = createRequire(import.meta.url)("x11") as {
    createClient(
      options: { display: string },
      callback: (error: unknown, display: { client: X11Client; screen: Array<{ root: number }> }) => void,
    ): void;
  };
  const connect = () =>
    new Promise<{ client: X11Client; root: number }>((resolve, reject) =>
      x11.createClient({ display }, (error, d) => (error ? reject(error) : resolve({ client: d.client, root: d.screen[0]?.root ?? 0 }))),
    );
  // On a busy machine the server now and then closes a new connection before its set-up: try again.
  let connected: { client: X11Client; root: number } | undefined;
  for (let attempt = 1; !connected; attempt++) {
    connected = await connect().catch((error) => {
      if (attempt >= 5) throw error;
      return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300));
    });
  }
  const { client, root } = connected;
  const atom = (name: string) =>
    new Promise<number>((resolve, reject) => client.InternAtom(false, name, (error, value) => (error ? reject(error) : resolve(value))));
  const clipboard = await atom("CLIPBOARD");
  const targets = await atom("TARGETS");
  const utf8 = await atom("UTF8_STRING");
  const hint = await atom("x-kde-passwordManagerHint");
  const atomType = await atom("ATOM");
  const window = client.AllocID();
  client.CreateWindow(window, root, 0, 0, 1, 1, 0, 0, 0, 0, {});
  let text = "";
  // Requests still arriving as the connection ends are of no interest.
  client.on("error", () => {});
  client.on("event", (event) => {
    if (event.name !== "SelectionRequest") return;
    const { requestor, target, property, time, selection } = event as Record<string, number>;
    let answered = property;
    if (target === targets) {
      const list = Buffer.alloc(12);
      for (const [i, value] of [targets, utf8, hint].entries()) list.writeUInt32LE(value, i * 4);
      client.ChangeProperty(0, requestor as number, property as number, atomType, 32, list);
    } else if (target === utf8) {
      client.ChangeProperty(0, requestor as number, property as number, utf8, 8, Buffer.from(text));
    } else if (target === hint) {
      client.ChangeProperty(0, requestor as number, property as number, utf8, 8, Buffer.from("secret"));
    } else {
      answered = 0;
    }
    client.SendEvent(requestor as number, 0, 0, {
      type: 31,
      name: "SelectionNotify",
      seq: 0,
      time,
      requestor,
      selection,
      target,
      property: answered,
    });
  });
  return {
    own(next: string) {
      text = next;
      client.SetSelectionOwner(window, clipboard, 0);
    },
    close: () => client.terminate(),
  };
}

/**
 * Owns the X11 clipboard with `text` and the mark KeePassXC and KDE's password managers put on a secret
 * (the target x-kde-passwordManagerHint, whose value is "secret"), as xclip alone cannot: it offers one target.
 * It keeps the clipboard until something else is copied.
 */
export async function copyConcealed(display: string, text: string): Promise<void> {
  let owner = owners.get(display);
  if (!owner) {
    owner = clipboardOwner(display);
    owners.set(display, owner);
  }
  (await owner).own(text);
}

async function closeOwner(display: string) {
  const owner = owners.get(display);
  owners.delete(display);
  if (owner) (await owner).close();
}

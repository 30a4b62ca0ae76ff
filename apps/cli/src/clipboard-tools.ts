/**
 * The system clipboard as `daysync clip` sees it, through each system's own tools: wl-clipboard on Wayland,
 * xclip (or xsel) on X11, osascript and pbcopy on macOS, PowerShell on Windows. Each tool says when the
 * clipboard changed (an event where the system offers one, polling where it does not), reads what is in it
 * (with the marks password managers put on secrets) and writes text into it.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { CliError } from "./errors.ts";

/** What the clipboard holds now. */
export interface ClipboardSnapshot {
  text: string | null;
  /** A PNG image, read only when images are asked for and there is no text. */
  image: Buffer | null;
  /** A password manager marked it as secret (concealed). */
  concealed: boolean;
}

export interface ClipboardTool {
  /** For messages: "wl-clipboard (Wayland)". */
  readonly name: string;
  /** A caveat to say once at start, e.g. that this tool cannot see the marks of password managers. */
  readonly caveat?: string;
  /** Calls `changed` after each change of the clipboard (or at each tick, for tools that poll); returns a stop function. */
  watch(changed: () => void, failed: (error: Error) => void): () => void;
  read(options: { images: boolean }): Promise<ClipboardSnapshot>;
  write(text: string): Promise<void>;
}

/** Mime types and formats by which password managers mark a copy as secret. */
export const CONCEALED_TYPES = [
  "x-kde-passwordManagerHint",
  "org.nspasteboard.ConcealedType",
  "ExcludeClipboardContentFromMonitorProcessing",
];

const EMPTY: ClipboardSnapshot = { text: null, image: null, concealed: false };
/** How often X11 is asked for the clipboard, which offers no change event to its command-line tools. */
export const X11_POLL_MS = 400;
/** A tool that has not answered by then is stopped (PowerShell takes its time to start). */
const READ_TIMEOUT_MS = process.platform === "win32" ? 15_000 : 5_000;

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs a tool to its exit with `input` on its standard input. Tools that keep serving the clipboard after they
 * are done (wl-copy, xclip -i, xsel -i fork a child that holds the pipes) are waited for by their exit, not by
 * the end of their output.
 */
function run(
  command: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; forks?: boolean; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const spawnOptions: SpawnOptions = { env: options.env ?? process.env, stdio: ["pipe", options.forks ? "ignore" : "pipe", "pipe"] };
    const child = spawn(command, args, spawnOptions);
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // A read from an owner that went away (it lost the clipboard as it was asked) can wait for ever.
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? READ_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on(options.forks ? "exit" : "close", (code) => {
      clearTimeout(timer);
      if (options.forks) child.stderr?.destroy();
      resolve({ code, stdout: Buffer.concat(out), stderr: stderr.trim() });
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input ?? "");
  });
}

async function mustRun(command: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<Buffer> {
  const ran = await run(command, args, options);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${ran.code}): ${ran.stderr}`);
  return ran.stdout;
}

/** A long-running tool that prints a line at each change; a line-less exit is a failure. */
function watchLines(command: string, args: string[], changed: () => void, failed: (error: Error) => void): () => void {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stopped = false;
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  createInterface({ input: child.stdout }).on("line", () => changed());
  child.on("error", (error) => failed(error));
  child.on("exit", (code) => {
    if (!stopped) failed(new Error(`${path.basename(command)} stopped watching the clipboard (${code}): ${stderr.trim()}`));
  });
  return () => {
    stopped = true;
    child.kill();
  };
}

function poll(changed: () => void, everyMs: number): () => void {
  const timer = setInterval(changed, everyMs);
  return () => clearInterval(timer);
}

const isConcealed = (types: string[]) => types.some((t) => CONCEALED_TYPES.includes(t));

/**
 * wl-copy, xclip and xsel return before the child they leave behind owns the clipboard: a write is done when the
 * clipboard reads back as it (or after 3 s, when someone else may have copied meanwhile).
 */
async function untilItReads(read: () => Promise<Ran>, text: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const ran = await read();
    if (ran.code === 0 && ran.stdout.toString() === text) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Reads the clipboard's contents by the types it offers, then the types again: another program can copy between the
 * two reads, and a password manager's secret must not pass under the previous copy's types. Until the types hold
 * still (three tries), the contents are read again; a mark seen on either side conceals the copy.
 */
export async function readSteadily(
  types: () => Promise<string[]>,
  contents: (offered: string[]) => Promise<ClipboardSnapshot>,
): Promise<ClipboardSnapshot> {
  let offered = await types();
  for (let attempt = 1; ; attempt++) {
    const snapshot = await contents(offered);
    const after = await types();
    const steady = after.length === offered.length && after.every((type, i) => type === offered[i]);
    if (steady || attempt === 3) return { ...snapshot, concealed: snapshot.concealed || isConcealed(after) };
    offered = after;
  }
}

function wayland(): ClipboardTool {
  const types = async () => {
    const ran = await run("wl-paste", ["--list-types"]);
    return ran.code === 0 ? ran.stdout.toString().split("\n").filter(Boolean) : [];
  };
  return {
    name: "wl-clipboard (Wayland)",
    watch: (changed, failed) => watchLines("wl-paste", ["--watch", "echo"], changed, failed),
    read: ({ images }) =>
      readSteadily(types, async (offered) => {
        if (offered.length === 0) return EMPTY;
        const concealed = isConcealed(offered);
        const hasText = offered.some((t) => t.startsWith("text/plain") || t === "UTF8_STRING" || t === "STRING" || t === "TEXT");
        if (hasText) {
          const ran = await run("wl-paste", ["--no-newline", "--type", "text"]);
          if (ran.code === 0) return { text: ran.stdout.toString(), image: null, concealed };
        }
        if (images && offered.includes("image/png")) {
          const ran = await run("wl-paste", ["--type", "image/png"]);
          if (ran.code === 0) return { text: null, image: ran.stdout, concealed };
        }
        return { ...EMPTY, concealed };
      }),
    async write(text) {
      await mustRun("wl-copy", [], { input: text, forks: true });
      await untilItReads(() => run("wl-paste", ["--no-newline", "--type", "text"]), text);
    },
  };
}

function xclip(): ClipboardTool {
  const out = (target: string) => run("xclip", ["-selection", "clipboard", "-out", "-target", target]);
  const targets = async () => {
    const ran = await out("TARGETS");
    return ran.code === 0 ? ran.stdout.toString().split("\n").filter(Boolean) : [];
  };
  return {
    name: "xclip (X11)",
    watch: (changed) => poll(changed, X11_POLL_MS),
    read: ({ images }) =>
      // No owner (nothing copied yet) is an error for xclip: an empty clipboard.
      readSteadily(targets, async (offered) => {
        if (offered.length === 0) return EMPTY;
        const concealed = isConcealed(offered);
        const textTarget = ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain"].find((t) => offered.includes(t));
        if (textTarget) {
          const ran = await out(textTarget);
          if (ran.code === 0) return { text: ran.stdout.toString(), image: null, concealed };
        }
        if (images && offered.includes("image/png")) {
          const ran = await out("image/png");
          if (ran.code === 0) return { text: null, image: ran.stdout, concealed };
        }
        return { ...EMPTY, concealed };
      }),
    async write(text) {
      await mustRun("xclip", ["-selection", "clipboard", "-in"], { input: text, forks: true });
      await untilItReads(() => out("UTF8_STRING"), text);
    },
  };
}

function xsel(): ClipboardTool {
  return {
    name: "xsel (X11)",
    caveat: "xsel cannot see the marks password managers put on secrets, so concealed copies cannot be skipped: install xclip for that.",
    watch: (changed) => poll(changed, X11_POLL_MS),
    async read() {
      const ran = await run("xsel", ["--clipboard", "--output"]);
      return ran.code === 0 && ran.stdout.length > 0 ? { text: ran.stdout.toString(), image: null, concealed: false } : EMPTY;
    },
    async write(text) {
      await mustRun("xsel", ["--clipboard", "--input"], { input: text, forks: true });
      await untilItReads(() => run("xsel", ["--clipboard", "--output"]), text);
    },
  };
}

/** JavaScript for Automation: writes one line to standard output (console.log goes to standard error). */
const JXA_PRINT = `ObjC.import("AppKit");
function print(s) { $.NSFileHandle.fileHandleWithStandardOutput.writeData($(s + "\\n").dataUsingEncoding($.NSUTF8StringEncoding)); }`;

/** Prints the pasteboard's change count each time it changes. */
const JXA_WATCH = `${JXA_PRINT}
var pb = $.NSPasteboard.generalPasteboard, last = -1;
while (true) { var n = pb.changeCount; if (n !== last) { last = n; print(String(n)); } delay(0.3); }`;

const jxaRead = (images: boolean) => `${JXA_PRINT}
var pb = $.NSPasteboard.generalPasteboard;
var types = ObjC.deepUnwrap(pb.types) || [];
var text = pb.stringForType("public.utf8-plain-text");
var png = ${images} && types.indexOf("public.png") >= 0 ? pb.dataForType("public.png") : null;
print(JSON.stringify({ types: types, text: text.isNil() ? null : ObjC.unwrap(text), png: png && !png.isNil() ? ObjC.unwrap(png.base64EncodedStringWithOptions(0)) : null }));`;

function macos(): ClipboardTool {
  const utf8 = { ...process.env, LANG: "en_US.UTF-8", LC_ALL: "en_US.UTF-8" };
  return {
    name: "the macOS pasteboard",
    watch: (changed, failed) => watchLines("osascript", ["-l", "JavaScript", "-e", JXA_WATCH], changed, failed),
    async read({ images }) {
      const out = await mustRun("osascript", ["-l", "JavaScript", "-e", jxaRead(images)]);
      const read = JSON.parse(out.toString()) as { types: string[]; text: string | null; png: string | null };
      const concealed = isConcealed(read.types);
      if (read.text !== null) return { text: read.text, image: null, concealed };
      return { text: null, image: read.png ? Buffer.from(read.png, "base64") : null, concealed };
    },
    write: async (text) => void (await mustRun("pbcopy", [], { input: text, env: utf8 })),
  };
}

/** PowerShell, run with -EncodedCommand so that no quoting stands in the way. */
const powershell = (script: string) => [
  "-NoProfile",
  "-NonInteractive",
  "-STA",
  "-EncodedCommand",
  Buffer.from(`$ErrorActionPreference = 'Stop'\n${script}`, "utf16le").toString("base64"),
];

/** Prints the clipboard's sequence number each time it changes. */
const PS_WATCH = `Add-Type -Namespace Daysync -Name Clip -MemberDefinition '[DllImport("user32.dll")] public static extern uint GetClipboardSequenceNumber();'
$last = -1
while ($true) { $n = [Daysync.Clip]::GetClipboardSequenceNumber(); if ($n -ne $last) { $last = $n; [Console]::Out.WriteLine($n); [Console]::Out.Flush() }; Start-Sleep -Milliseconds 300 }`;

/** Windows' exclusion formats: ExcludeClipboardContentFromMonitorProcessing present, or history/cloud sync refused (a DWORD 0). */
const psRead = (images: boolean) => `Add-Type -AssemblyName System.Windows.Forms, System.Drawing
[Console]::OutputEncoding = [Text.Encoding]::UTF8
$d = [Windows.Forms.Clipboard]::GetDataObject()
$formats = if ($d) { @($d.GetFormats()) } else { @() }
$concealed = $formats -contains 'ExcludeClipboardContentFromMonitorProcessing'
foreach ($f in 'CanIncludeInClipboardHistory', 'CanUploadToCloudClipboard') {
  if ($formats -contains $f) { $s = $d.GetData($f); if ($s -is [IO.MemoryStream]) { $b = $s.ToArray(); if ($b.Length -ge 4 -and [BitConverter]::ToInt32($b, 0) -eq 0) { $concealed = $true } } }
}
$text = if ([Windows.Forms.Clipboard]::ContainsText()) { [Windows.Forms.Clipboard]::GetText() } else { $null }
$png = $null
if (${images ? "$true" : "$false"} -and $text -eq $null -and [Windows.Forms.Clipboard]::ContainsImage()) {
  $ms = New-Object IO.MemoryStream; [Windows.Forms.Clipboard]::GetImage().Save($ms, [Drawing.Imaging.ImageFormat]::Png); $png = [Convert]::ToBase64String($ms.ToArray())
}
[Console]::Out.WriteLine((@{ text = $text; concealed = [bool]$concealed; png = $png } | ConvertTo-Json -Compress))`;

const PS_WRITE = `[Console]::InputEncoding = [Text.Encoding]::UTF8
Add-Type -AssemblyName System.Windows.Forms
[Windows.Forms.Clipboard]::SetText([Console]::In.ReadToEnd())`;

function windows(): ClipboardTool {
  return {
    name: "the Windows clipboard (PowerShell)",
    watch: (changed, failed) => watchLines("powershell.exe", powershell(PS_WATCH), changed, failed),
    async read({ images }) {
      const out = await mustRun("powershell.exe", powershell(psRead(images)));
      const read = JSON.parse(out.toString()) as { text: string | null; concealed: boolean; png: string | null };
      return { text: read.text, image: read.png ? Buffer.from(read.png, "base64") : null, concealed: read.concealed };
    },
    async write(text) {
      // SetText refuses an empty string; an empty text is never written anyway.
      if (text) await mustRun("powershell.exe", powershell(PS_WRITE), { input: text });
    },
  };
}

/** Whether `name` is an executable file in one of PATH's folders. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const extensions = process.platform === "win32" ? (env.PATHEXT ?? ".EXE").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    for (const ext of extensions) {
      try {
        accessSync(path.join(dir, name + ext), constants.X_OK);
        return true;
      } catch {}
    }
  }
  return false;
}

const INSTALL_WL =
  "install wl-clipboard (Debian/Ubuntu: sudo apt install wl-clipboard; Fedora: sudo dnf install wl-clipboard; Arch: sudo pacman -S wl-clipboard)";
const INSTALL_X = "install xclip (Debian/Ubuntu: sudo apt install xclip; Fedora: sudo dnf install xclip; Arch: sudo pacman -S xclip)";

/** The tool for this system's clipboard, or an error that names what to install. */
export function clipboardTool(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): ClipboardTool {
  if (platform === "darwin") return macos();
  if (platform === "win32") {
    if (!onPath("powershell", env)) throw new CliError("daysync clip needs Windows PowerShell (powershell.exe), which is not on the PATH.");
    return windows();
  }
  if (env.WAYLAND_DISPLAY) {
    if (onPath("wl-paste", env) && onPath("wl-copy", env)) return wayland();
    throw new CliError(`daysync clip needs wl-paste and wl-copy on Wayland: ${INSTALL_WL}.`);
  }
  if (env.DISPLAY) {
    if (onPath("xclip", env)) return xclip();
    if (onPath("xsel", env)) return xsel();
    throw new CliError(`daysync clip needs xclip (or xsel) on X11: ${INSTALL_X}.`);
  }
  throw new CliError(
    "No clipboard here: this system has no display server (neither DISPLAY nor WAYLAND_DISPLAY is set). Run daysync clip inside your desktop session.",
  );
}

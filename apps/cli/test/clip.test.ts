import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API, type DateMessages, type Message, type ServerLiveMessage } from "@daysync/shared";
import { openMessage, SEALED_TEXT } from "@daysync/shared/crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../../server/src/testing/test-server.ts";
import { type CliProcess, tempDir } from "./cli-process.ts";
import { copyConcealed, type Desktop, startSway, startXvfb } from "./desktop.ts";
import { keptInClear, postSealed, sealerBeside, sendFromBrowser, terminalEpochs } from "./key-holder.ts";
import { useSignedInTerminal } from "./sign-in.ts";

const ann = useSignedInTerminal();
const running: CliProcess[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.kill()));
});

async function startClip(desktop: Desktop, args: string[] = []): Promise<CliProcess> {
  const cli = ann.terminal.spawn(["clip", ...args], { env: desktop.env });
  running.push(cli);
  // Starting the command (TypeScript through tsx) is slow on a busy machine.
  await cli.waitFor(/Syncing the clipboard with[\s\S]*Connected\./, { stream: "stderr", timeoutMs: 30_000 });
  return cli;
}

/** A text as the terminal's keys open it: clip sends sealed (decision 020), and nothing else can read it. */
async function openedText(message: Message): Promise<string> {
  const opened = await openMessage(message.user_id, await terminalEpochs(ann.terminal), message);
  return opened.state === "opened" || opened.state === "clear" ? opened.text : `(${opened.state})`;
}

/** Every text message of Ann's days, oldest first, opened. */
async function serverTexts(): Promise<string[]> {
  const days = await ann.browser.get<{ days: DateMessages[] }>(API.days);
  const texts: Message[] = [];
  for (const day of days.body.days) {
    const res = await ann.browser.get<{ messages: Message[] }>(API.dayMessages(day.id));
    texts.push(...res.body.messages.filter((m) => m.type === "text"));
  }
  return Promise.all(texts.sort((a, b) => a.timestamps - b.timestamps).map(openedText));
}

/** Sends a text from Ann's browser: another device of hers. */
async function sendFromPhone(content: string) {
  await sendFromBrowser(ann, content, ann.server.clock.now());
}

/** Waits until `text` has appeared `times` times on the clip's standard error (counted, not matched: a regular
 * expression for the n-th occurrence backtracks badly, and this process also runs the server). */
async function waitForLog(cli: CliProcess, text: string, times = 1) {
  const deadline = Date.now() + 30_000;
  while (countLog(cli, text) < times) {
    if (Date.now() > deadline) throw new Error(`"${text}" not ${times} times on clip's standard error: ${cli.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const countLog = (cli: CliProcess, text: string) => cli.stderr.split(text).length - 1;

const created = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message] : []));

const desktops: Array<[string, () => Promise<Desktop>, string]> = [
  ["X11 (Xvfb with xclip)", startXvfb, "x11"],
  ["Wayland (headless sway with wl-clipboard)", startSway, "wayland"],
];

describe.each(desktops)("daysync clip on %s", (_name, start, tag) => {
  let desktop: Desktop;
  beforeAll(async () => {
    desktop = await start();
  });
  afterAll(async () => {
    await desktop?.stop();
  });

  it("a copy on the computer arrives on the other devices as a message within 2 s", async () => {
    const phone = await ann.browser.live(0);
    await startClip(desktop);
    await desktop.copy("copied on the computer");
    // From the moment the clipboard holds it (the copy tool's own start-up is not clip's).
    const copied = Date.now();
    await phone.waitFor((received) => created(received).length > 0, 2000);
    expect(Date.now() - copied).toBeLessThan(2000);
    const [message] = created(phone.received);
    // Sealed: the server relayed a value only Ann's devices open.
    expect(message?.epoch).toBe(1);
    expect(message?.content).not.toContain("copied on the computer");
    expect(message && (await openedText(message))).toBe("copied on the computer");
    phone.close();
  });

  it("a text sent from another device lands in the clipboard", async () => {
    const cli = await startClip(desktop);
    await sendFromPhone("from the phone");
    await waitForLog(cli, "Copied a text from");
    expect(await desktop.paste()).toBe("from the phone");
  });

  it("never echoes, in either direction, over 20 round trips", async () => {
    const before = await serverTexts();
    const cli = await startClip(desktop);
    for (let i = 1; i <= 20; i++) {
      await desktop.copy(`${tag} computer ${i}`);
      await waitForLog(cli, "Sent a copy", i);
      await sendFromPhone(`${tag} phone ${i}`);
      await waitForLog(cli, "Copied a text from", i);
      expect(await desktop.paste()).toBe(`${tag} phone ${i}`);
    }
    // A last copy: whatever clip would have sent back before it has been sent by the time it arrives.
    await desktop.copy(`${tag} the end`);
    await waitForLog(cli, "Sent a copy", 21);
    // Each text once: an echo would be a second message with the same text.
    const after = await serverTexts();
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => [`${tag} computer ${i + 1}`, `${tag} phone ${i + 1}`]).flat(),
      `${tag} the end`,
    ];
    expect(after).toHaveLength(before.length + expected.length);
    expect(after.filter((t) => expected.includes(t)).sort()).toEqual(expected.sort());
    expect(countLog(cli, "Copied a text from")).toBe(20);
    expect(countLog(cli, "Sent a copy")).toBe(21);
  }, 240_000);
});

describe("daysync clip on X11", () => {
  let desktop: Desktop;
  beforeAll(async () => {
    desktop = await startXvfb();
  });
  afterAll(async () => {
    await desktop?.stop();
  });

  it("a text sealed on another device is opened into the clipboard; one that does not open is not", async () => {
    const cli = await startClip(desktop);
    const sealer = await sealerBeside(ann.browser, ann.terminal);
    await postSealed(ann.browser, sealer, "sealed on the phone", ann.server.clock.now());
    await waitForLog(cli, "Copied a text from");
    expect(await desktop.paste()).toBe("sealed on the phone");
    // Sealed as if by another session than the one that sent it: bound to the wrong device, it does not open.
    await postSealed(ann.browser, { ...sealer, sessionId: randomUUID() }, "moved to another device", ann.server.clock.now());
    await waitForLog(cli, `: ${SEALED_TEXT.undecryptable}`);
    expect(await desktop.paste()).toBe("sealed on the phone");
    expect(cli.stderr).not.toMatch(/v1\.\d+\./);
    expect(cli.child.exitCode).toBeNull();
  });

  it("a text in clear the server wrote into the keyed account is never copied: it says why", async () => {
    const cli = await startClip(desktop);
    const sealer = await sealerBeside(ann.browser, ann.terminal);
    await postSealed(ann.browser, sealer, "sealed before the forgery", ann.server.clock.now());
    await waitForLog(cli, "Copied a text from");
    await keptInClear(ann.server, ann.browser, "forged by the server", ann.server.clock.now());
    await waitForLog(cli, `: ${SEALED_TEXT.notEncrypted}`);
    expect(await desktop.paste()).toBe("sealed before the forgery");
    expect(cli.stderr).not.toContain("forged by the server");
  });

  it("skips a copy that a password manager marks as concealed, and sends it with --include-secrets", async () => {
    const cli = await startClip(desktop);
    await copyConcealed(desktop.env.DISPLAY ?? "", "hunter2 concealed");
    await waitForLog(cli, "Skipped a copy that a password manager marked as concealed");
    await desktop.copy("an ordinary copy");
    await waitForLog(cli, "Sent a copy");
    await cli.kill();
    expect(await serverTexts()).not.toContain("hunter2 concealed");
    expect(await serverTexts()).toContain("an ordinary copy");

    const secrets = await startClip(desktop, ["--include-secrets"]);
    await copyConcealed(desktop.env.DISPLAY ?? "", "sent on purpose");
    await waitForLog(secrets, "Sent a copy");
    expect(await serverTexts()).toContain("sent on purpose");
  });

  it("--min-length and --ignore (repeatable) keep those copies here", async () => {
    const cli = await startClip(desktop, ["--min-length", "4", "--ignore", "^\\d{6}$", "--ignore", "^https://bank\\."]);
    await desktop.copy("abc");
    await waitForLog(cli, "Skipped a copy shorter than --min-length 4");
    await desktop.copy("123456");
    await waitForLog(cli, "Skipped a copy matching --ignore ^\\d{6}$");
    await desktop.copy("https://bank.example/login");
    await waitForLog(cli, "Skipped a copy matching --ignore ^https://bank\\.");
    await desktop.copy("long enough");
    await waitForLog(cli, "Sent a copy");
    const texts = await serverTexts();
    expect(texts).toContain("long enough");
    for (const kept of ["abc", "123456", "https://bank.example/login"]) expect(texts).not.toContain(kept);
  });

  it("--pause from another terminal stops the sync until --resume; what was copied meanwhile stays here", async () => {
    const cli = await startClip(desktop);
    const paused = await ann.terminal.run(["clip", "--pause"]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/Paused daysync clip \(process \d+\)/);
    await waitForLog(cli, "Paused: nothing is sent");
    await desktop.copy("copied while paused");
    const resumed = await ann.terminal.run(["clip", "--resume"]);
    expect(resumed.stdout).toMatch(/Resumed daysync clip/);
    await waitForLog(cli, "Resumed.");
    await desktop.copy("copied after resuming");
    await waitForLog(cli, "Sent a copy");
    const texts = await serverTexts();
    expect(texts).toContain("copied after resuming");
    expect(texts).not.toContain("copied while paused");
  });

  it("survives a server restart: a copy made while it is down is sent once, texts sent meanwhile arrive once", async () => {
    const cli = await startClip(desktop);
    const { dataDir, clock } = ann.server;
    const port = Number(new URL(ann.server.url).port);
    await ann.server.close({ keepData: true });
    await cli.waitFor(/connection to .* was lost/, { stream: "stderr" });
    await desktop.copy("copied while the server was down");

    ann.server = await startTestServer({}, { dataDir, clock, port });
    await sendFromPhone("sent right after the restart");
    await waitForLog(cli, "Copied a text from");
    await waitForLog(cli, "Sent a copy");
    await sendFromPhone("sent once it was back");
    await waitForLog(cli, "Copied a text from", 2);
    expect(await desktop.paste()).toBe("sent once it was back");
    const texts = await serverTexts();
    expect(texts.filter((t) => t === "copied while the server was down")).toHaveLength(1);
    expect(texts.filter((t) => t === "sent right after the restart")).toHaveLength(1);
    expect(countLog(cli, "Copied a text from")).toBe(2);
  });
});

describe("daysync clip arguments and set-up", () => {
  it("bad arguments are refused with a clear message and exit code 2; a missing tool is named", async () => {
    const bad = await ann.terminal.run(["clip", "--min-length", "three"]);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain("--min-length takes a whole number of characters");
    const x11 = await ann.terminal.run(["clip"], { env: { DISPLAY: ":99", PATH: tempDir("no-tools") } });
    expect(x11.code).toBe(1);
    expect(x11.stderr).toContain("daysync clip needs xclip (or xsel) on X11: install xclip");
  });

  it("--install-service writes a systemd user unit that parses and enables it; --uninstall-service removes it", async () => {
    const home = tempDir("home");
    const bin = tempDir("bin");
    const calls = path.join(bin, "calls.txt");
    // systemctl stands in for the user's service manager: it records what it was asked.
    writeFileSync(path.join(bin, "systemctl"), `#!/bin/sh\necho "$@" >> '${calls}'\n`);
    chmodSync(path.join(bin, "systemctl"), 0o755);
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), PATH: `${bin}:${process.env.PATH}` };

    const installed = await ann.terminal.run(["clip", "--install-service", "--min-length", "3", "--ignore", "^\\d{6}$"], { env });
    expect(installed.code, installed.stderr).toBe(0);
    const unitPath = path.join(home, ".config", "systemd", "user", "daysync-clip.service");
    expect(installed.stdout).toContain(`Installed the systemd user service ${unitPath}`);
    const unit = readFileSync(unitPath, "utf8");
    expect(unit).toContain(`ExecStart="${process.execPath}"`);
    expect(unit).toContain('"clip" "--min-length" "3" "--ignore" "^\\\\d{6}$$"');
    expect(unit).toContain(`Environment="DAYSYNC_SERVER=${ann.server.url}"`);
    expect(unit).toContain("WantedBy=default.target");
    expect(readFileSync(calls, "utf8")).toBe("--user daemon-reload\n--user enable --now daysync-clip.service\n");

    const analyze = spawnSync("systemd-analyze", ["verify", unitPath], { encoding: "utf8" });
    if (analyze.error) {
      expect((analyze.error as NodeJS.ErrnoException).code).toBe("ENOENT");
    } else {
      expect(
        analyze.stderr.split("\n").filter((line) => line.includes("daysync-clip.service")),
        analyze.stderr,
      ).toEqual([]);
      expect(analyze.status, analyze.stderr).toBe(0);
    }

    const removed = await ann.terminal.run(["clip", "--uninstall-service"], { env });
    expect(removed.code).toBe(0);
    expect(existsSync(unitPath)).toBe(false);
    expect(readFileSync(calls, "utf8")).toContain("--user disable --now daysync-clip.service\n");
  });
});

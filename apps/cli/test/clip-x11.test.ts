/**
 * daysync clip on X11: sealed and forged texts, concealed copies, filters, pause, a server restart, and its arguments;
 * and `daysync send --clipboard`, the one-off send a desktop shortcut runs.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MAX_MESSAGE_LENGTH, SEALED_TEXT } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../../server/src/testing/test-server.ts";
import { tempDir } from "./cli-process.ts";
import { countLog, useClipHarness, waitForLog } from "./clip-harness.ts";
import { copyConcealed, type Desktop, startXvfb } from "./desktop.ts";
import { keptInClear, postSealed, sealerBeside } from "./key-holder.ts";

const { ann, startClip, serverTexts, sendFromPhone } = useClipHarness();

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

  it("send --clipboard sends what xclip holds, once; a concealed copy only with --include-secrets", async () => {
    const exact = "copied for the hotkey:\n  indented, with ünïcode ✓";
    await desktop.copy(exact);
    const sent = await ann.terminal.run(["send", "--clipboard"], { env: desktop.env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^Sent message .+ \(\d+ characters\)\.$/m);
    const texts = await serverTexts();
    expect(texts.filter((text) => text === exact)).toHaveLength(1);

    await copyConcealed(desktop.env.DISPLAY ?? "", "hunter2 by hotkey");
    const refused = await ann.terminal.run(["send", "--clipboard"], { env: desktop.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("marked what the clipboard holds as concealed (--include-secrets sends it)");
    expect(await serverTexts()).not.toContain("hunter2 by hotkey");
    const secret = await ann.terminal.run(["send", "--clipboard", "--include-secrets"], { env: desktop.env });
    expect(secret.code, secret.stderr).toBe(0);
    expect(await serverTexts()).toContain("hunter2 by hotkey");

    // Too long for a message, it goes as a sealed text file, as clip sends it.
    await desktop.copy("long copy ".repeat(MAX_MESSAGE_LENGTH / 5));
    const long = await ann.terminal.run(["send", "--clipboard"], { env: desktop.env });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toMatch(/^Sent clipboard-[\d-]+\.txt \(.+\) as message .+\.$/m);

    const mixed = await ann.terminal.run(["send", "--clipboard", "and words"], { env: desktop.env });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("give no text and no --file with it");
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

/**
 * `daysync clip --hotkey`: under a real Xvfb, the shortcut is pressed through XTEST (xdotool) and each press sends what
 * the clipboard holds, once; a copy without a press sends nothing; a shortcut another program holds, a Wayland
 * session and a bad --hotkey are refused with what to do instead.
 */
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CliProcess } from "./cli-process.ts";
import { useClipHarness } from "./clip-harness.ts";
import { type Desktop, requireTools, startXvfb } from "./desktop.ts";

const { ann, serverTexts } = useClipHarness();
const READY = /Press Ctrl\+Alt\+D to send what the clipboard holds/;
/** How long a copy without a press is given to (wrongly) arrive. */
const QUIET_MS = 1500;

const sentCount = (cli: CliProcess) => cli.stdout.split("Sent message ").length - 1;
const countOf = (texts: string[], text: string) => texts.filter((t) => t === text).length;

async function until(condition: () => boolean | Promise<boolean>, what: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("daysync clip --hotkey on X11", () => {
  let desktop: Desktop;
  const running: CliProcess[] = [];
  beforeAll(async () => {
    requireTools(["xdotool"], "xdotool");
    desktop = await startXvfb();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((cli) => cli.kill()));
  });
  afterAll(async () => {
    await desktop?.stop();
  });

  const press = (keys: string) => {
    const pressed = spawnSync("xdotool", ["key", keys], { env: { ...process.env, ...desktop.env } });
    expect(pressed.status, pressed.stderr.toString()).toBe(0);
  };
  const startHotkey = async (keys = "Ctrl+Alt+D") => {
    const cli = ann.terminal.spawn(["clip", "--hotkey", keys], { env: desktop.env });
    running.push(cli);
    await cli.waitFor(READY, { stream: "stderr" });
    return cli;
  };

  it("each press sends what the clipboard holds, once (NumLock on or off); a copy without a press sends nothing; Ctrl+C ends it", async () => {
    const cli = await startHotkey();
    // Nothing copied yet on this display: it says so and sends nothing.
    press("ctrl+alt+d");
    await cli.waitFor(/Nothing to send: the clipboard holds no text and no image\./, { stream: "stderr" });

    const first = "first by the hotkey: ünïcode ✓";
    await desktop.copy(first);
    press("ctrl+alt+d");
    await until(
      () => sentCount(cli) === 1,
      () => cli.stdout + cli.stderr,
    );
    expect(cli.stdout).toMatch(/^Sent message .+ \(\d+ characters\)\.$/m);
    expect(countOf(await serverTexts(), first)).toBe(1);

    // With NumLock on, a press carries one more modifier: the shortcut still works.
    const second = "second by the hotkey";
    await desktop.copy(second);
    press("Num_Lock");
    try {
      press("ctrl+alt+d");
    } finally {
      press("Num_Lock");
    }
    await until(
      () => sentCount(cli) === 2,
      () => cli.stdout + cli.stderr,
    );
    await until(
      async () => countOf(await serverTexts(), second) === 1,
      () => "the second text did not arrive",
    );

    // Copied, not pressed: it watches no clipboard. Neither does another key with the same letter.
    const unsent = "copied without a press";
    await desktop.copy(unsent);
    press("ctrl+d");
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const texts = await serverTexts();
    expect(texts).not.toContain(unsent);
    expect(countOf(texts, first)).toBe(1);
    expect(countOf(texts, second)).toBe(1);
    expect(sentCount(cli)).toBe(2);

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  it("a shortcut another program holds is refused, naming it and --hotkey KEYS", async () => {
    await startHotkey();
    const second = await ann.terminal.run(["clip", "--hotkey", "Ctrl+Alt+D"], { env: desktop.env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("The shortcut Ctrl+Alt+D is already taken by another program");
    expect(second.stderr).toContain("choose another with --hotkey KEYS");
  });
});

describe("daysync clip --hotkey elsewhere, and its arguments", () => {
  it("on Wayland it prints the desktop bindings to add instead and exits with 9 (not available here)", async () => {
    const wayland = await ann.terminal.run(["clip", "--hotkey", "Ctrl+Alt+D"], { env: { WAYLAND_DISPLAY: "wayland-dummy" } });
    expect(wayland.code).toBe(9);
    expect(wayland.stderr).toContain("On Wayland a program cannot take a global shortcut");
    expect(wayland.stderr).toContain("bindsym Ctrl+Alt+d exec daysync send --clipboard");
    expect(wayland.stderr).toContain('Settings › Keyboard › Custom Shortcuts › Add: command "daysync send --clipboard"');
  });

  it("a bad --hotkey, or one with clip's other flags, is a usage error (exit 2)", async () => {
    const unknown = await ann.terminal.run(["clip", "--hotkey", "Ctrl+Alt+Banana"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--hotkey "Ctrl+Alt+Banana" names a key it does not know, "Banana"');
    const typed = await ann.terminal.run(["clip", "--hotkey", "Shift+D"]);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain("would take a key that is typed: add Ctrl, Alt or Super");
    const mixed = await ann.terminal.run(["clip", "--hotkey", "--receive-only"]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("it takes only --include-secrets, not --receive-only");
  });
});

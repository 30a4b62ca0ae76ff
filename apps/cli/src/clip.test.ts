import { describe, expect, it } from "vitest";
import { parseClipOptions } from "./clip-options.ts";
import { clipboardTool } from "./clipboard-tools.ts";

describe("daysync clip's options", () => {
  it("are checked with their schema: a clear sentence for each mistake", () => {
    const refused: Array<[Parameters<typeof parseClipOptions>[0], string]> = [
      [{ minLength: "three" }, "--min-length takes a whole number of characters, e.g. --min-length 3."],
      [{ minLength: "-1" }, "--min-length takes a whole number of characters, e.g. --min-length 3."],
      [{ ignore: ["ok", "(unclosed"] }, '--ignore "(unclosed" is not a valid regular expression'],
      [{ receiveOnly: true, sendOnly: true }, "--receive-only and --send-only cannot be used together"],
      [{ pause: true, installService: true }, "Use one of --pause, --resume, --install-service and --uninstall-service at a time."],
    ];
    for (const [flags, message] of refused) expect(() => parseClipOptions(flags)).toThrow(message);
  });

  it("default to both ways, every length, no pattern", () => {
    const options = parseClipOptions({ minLength: "4", ignore: ["^\\d{6}$", "^https://bank\\."] });
    expect(options.minLength).toBe(4);
    expect(options.ignore.map((p) => p.regex.test("123456"))).toEqual([true, false]);
    expect(parseClipOptions({})).toMatchObject({ receiveOnly: false, sendOnly: false, minLength: 1, ignore: [], images: false });
  });
});

describe("the clipboard tool", () => {
  const linux = (env: NodeJS.ProcessEnv) => () => clipboardTool({ PATH: "/nonexistent", ...env }, "linux");

  it("names what to install when the tool for this display is missing", () => {
    expect(linux({ DISPLAY: ":1" })).toThrow(
      "daysync clip needs xclip (or xsel) on X11: install xclip (Debian/Ubuntu: sudo apt install xclip; Fedora: sudo dnf install xclip; Arch: sudo pacman -S xclip).",
    );
    expect(linux({ WAYLAND_DISPLAY: "wayland-1" })).toThrow(
      "daysync clip needs wl-paste and wl-copy on Wayland: install wl-clipboard (Debian/Ubuntu: sudo apt install wl-clipboard;",
    );
    expect(linux({})).toThrow("No clipboard here: this system has no display server");
  });

  it("picks wl-clipboard on Wayland and xclip on X11", () => {
    expect(clipboardTool({ PATH: process.env.PATH, WAYLAND_DISPLAY: "wayland-1", DISPLAY: ":0" }, "linux").name).toBe(
      "wl-clipboard (Wayland)",
    );
    expect(clipboardTool({ PATH: process.env.PATH, DISPLAY: ":0" }, "linux").name).toBe("xclip (X11)");
  });
});

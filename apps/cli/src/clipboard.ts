/** The system clipboard for `watch --copy`, through clipboardy, or through DAYSYNC_CLIPBOARD_COMMAND when set. */
import { spawn } from "node:child_process";
import clipboard from "clipboardy";
import { CliError } from "./errors.ts";

export interface Clipboard {
  copy(text: string): Promise<void>;
}

const HOW_TO =
  "Set DAYSYNC_CLIPBOARD_COMMAND to a command that reads the text on standard input (for example 'xclip -selection clipboard' or 'wl-copy').";

/** Runs `command` through the shell with `input` on its standard input; rejects unless it exits with 0. */
export function runWithInput(command: string, input: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: ["pipe", "ignore", "inherit"], env });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * The clipboard, or a clear error when this system has none to offer: on Linux, clipboard tools need a
 * display server (X11 or Wayland), which a server shell or a CI runner does not have.
 */
export function openClipboard(env: NodeJS.ProcessEnv = process.env): Clipboard {
  const command = env.DAYSYNC_CLIPBOARD_COMMAND;
  if (command) return { copy: (text) => runWithInput(command, text, env) };
  const linuxDesktop = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY || env.WSL_DISTRO_NAME || env.TERMUX_VERSION);
  if (process.platform === "linux" && !linuxDesktop) {
    throw new CliError(`No clipboard here: this system has no display server (neither DISPLAY nor WAYLAND_DISPLAY is set). ${HOW_TO}`);
  }
  return {
    async copy(text) {
      try {
        await clipboard.write(text);
      } catch (error) {
        throw new CliError(`Could not copy to the clipboard: ${(error as Error).message} ${HOW_TO}`);
      }
    },
  };
}

/**
 * `daysync clip --hotkey`: in the foreground, each press of a global shortcut sends what the clipboard holds, once,
 * exactly as `daysync send --clipboard` does (its code, run again at each press: the session and the keys are read
 * anew each time, so a sign-out or a new key is followed). The clipboard is not watched. X11 only: elsewhere a
 * program cannot take a global shortcut, and the command prints the desktop binding to add instead.
 */
import { sendClipboard } from "./commands/send.ts";
import type { Context } from "./context.ts";
import { CliError, EXIT } from "./errors.ts";
import { grabHotkey, type HeldHotkey } from "./global-hotkey.ts";
import { bindingsText, type Desktop } from "./hotkey-bindings.ts";
import { type Hotkey, hotkeyLabel } from "./hotkey-keys.ts";
import { warn } from "./terminal-text.ts";

/** Where the shortcut would be taken: an X display, or a desktop that keeps global shortcuts to itself. */
function desktopOf(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { x11: string } | Desktop | undefined {
  if (platform === "win32" || platform === "darwin") return platform;
  // Under Wayland an X11 grab (through Xwayland) sees keys only while an X11 window has the focus: not global.
  if (env.WAYLAND_DISPLAY) return "wayland";
  return env.DISPLAY ? { x11: env.DISPLAY } : undefined;
}

export async function runHotkey(ctx: Context, hotkey: Hotkey, options: { includeSecrets: boolean }): Promise<void> {
  const desktop = desktopOf(process.platform, process.env);
  if (desktop === undefined) {
    throw new CliError(
      "clip --hotkey needs the desktop session: neither DISPLAY (X11) nor WAYLAND_DISPLAY (Wayland) is set here.",
      EXIT.unavailable,
    );
  }
  if (typeof desktop === "string") throw new CliError(bindingsText(desktop, hotkey), EXIT.unavailable);
  const { server } = await ctx.signedIn();
  const keys = hotkeyLabel(hotkey);

  await new Promise<void>((resolve, reject) => {
    let held: HeldHotkey | undefined;
    let stopped = false;
    let sending = false;
    const stop = (error?: unknown) => {
      if (stopped) return;
      stopped = true;
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      held?.release();
      if (error) reject(error);
      else resolve();
    };
    const onSignal = () => stop();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);

    // One send at a time: a press while one is on its way (or a held key repeating) is not another send.
    const pressed = async () => {
      if (sending || stopped) return;
      sending = true;
      try {
        await sendClipboard(ctx, { includeSecrets: options.includeSecrets });
      } catch (error) {
        if (error instanceof CliError && error.exitCode === EXIT.signedOut) return stop(error);
        // Nothing to send, a concealed copy, the server out of reach: said, and the next press tries again.
        warn(error instanceof Error ? error.message : String(error));
      } finally {
        sending = false;
      }
    };

    grabHotkey(
      desktop.x11,
      hotkey,
      () => void pressed(),
      (error) => stop(new CliError(`The shortcut ${keys} was lost: ${error.message}`)),
    )
      .then((grabbed) => {
        held = grabbed;
        if (stopped) return grabbed.release();
        warn(`Press ${keys} to send what the clipboard holds to ${server}. Press Ctrl+C to stop.`);
      })
      .catch(stop);
  });
}

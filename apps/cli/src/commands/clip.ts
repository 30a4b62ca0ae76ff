/**
 * `daysync clip`: pause, resume, install or remove the service, send at each press of a shortcut (clip-hotkey.ts), or
 * run the clipboard session (clip-session.ts).
 */
import path from "node:path";
import { type ClipFlags, parseClipOptions, serviceArgs } from "../clip-options.ts";
import { ClipPause } from "../clip-pause.ts";
import { installService, uninstallService } from "../clip-service.ts";
import { ClipSession } from "../clip-session.ts";
import { clipboardTool } from "../clipboard-tools.ts";
import type { Context } from "../context.ts";
import { say } from "../terminal-text.ts";

export async function clip(ctx: Context, flags: ClipFlags): Promise<void> {
  const options = parseClipOptions(flags);
  const pause = new ClipPause(ctx.store.dir);
  if (options.pause || options.resume) {
    say(pause.set(options.pause));
    return;
  }
  if (options.hotkey) {
    const { runHotkey } = await import("../clip-hotkey.ts");
    return runHotkey(ctx, options.hotkey, { includeSecrets: options.includeSecrets });
  }
  if (options.uninstallService) {
    say(uninstallService());
    return;
  }
  const signedIn = await ctx.signedIn();
  const { server } = signedIn;
  if (options.installService) {
    const env: Record<string, string> = { DAYSYNC_SERVER: server };
    if (process.env.DAYSYNC_CONFIG_DIR) env.DAYSYNC_CONFIG_DIR = path.resolve(process.env.DAYSYNC_CONFIG_DIR);
    const bin = path.resolve(process.argv[1] ?? "daysync");
    say(installService({ argv: [process.execPath, bin, ...serviceArgs(flags)], env }));
    return;
  }
  await new ClipSession(ctx, signedIn, options, clipboardTool(), pause).run();
}

/**
 * `daysync unlock`: a locked terminal opens the account's keys with the recovery code (docs/protocol/encryption.md, "Recovery code"), as
 * "Use a recovery code" does in the web app. The code is asked for without echo, or read from standard input; never
 * from the arguments, where `ps` and the shell's history would keep it.
 */
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { ask, readStdinLine } from "../prompt.ts";
import { recoveryUnlock } from "../sealing/recovery-unlock.ts";
import { say } from "../terminal-text.ts";

export const UNLOCKED = "This terminal can now read your messages.";

export async function unlock(ctx: Context): Promise<void> {
  const { api, session, server } = await ctx.signedIn();
  const terminal = await recoveryUnlock(api, ctx.store, server, session.user.id);
  if (terminal.state === "ready") return say("This terminal can already read your messages.");
  if (terminal.state === "lost") throw new CliError("This terminal's keys are gone. Run daysync login again.", EXIT.locked);
  const interactive = process.stdin.isTTY === true;
  const typed = interactive ? await ask("Recovery code: ", { secret: true }) : await readStdinLine();
  if (typed.trim() === "") throw usageError("Type the recovery code you saved, or pipe it in on standard input.");
  await terminal.unlock(typed);
  say(UNLOCKED);
}

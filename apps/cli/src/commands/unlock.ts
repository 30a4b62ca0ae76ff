/**
 * `daysync unlock`: a locked terminal opens the account's keys with the recovery code (docs/protocol/encryption.md, "Recovery code"), as
 * "Use a recovery code" does in the web app. The code is asked for without echo, or read from standard input; never
 * from the arguments, where `ps` and the shell's history would keep it.
 */
import {
  RECOVERY_TEXT,
  RecoveryCodeError,
  RecoveryRefusedError,
  type RecoverySigner,
  unlockWithRecoveryCode,
} from "@daysync/shared/crypto";
import { fileKeys } from "../account-keys.ts";
import { ApiError } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { ask, readStdinLine } from "../prompt.ts";
import { say } from "../terminal-text.ts";

export const UNLOCKED = "This terminal can now read your messages.";

export async function unlock(ctx: Context): Promise<void> {
  const { api, session, server } = await ctx.signedIn();
  const userId = session.user.id;
  const parts = fileKeys(api, ctx.store, server, userId);
  const status = await parts.keys.sync();
  if (status.state === "ready") return say("This terminal can already read your messages.");
  if (status.state === "lost") throw new CliError("This terminal's keys are gone. Run daysync login again.", EXIT.locked);
  const interactive = process.stdin.isTTY === true;
  const typed = interactive ? await ask("Recovery code: ", { secret: true }) : await readStdinLine();
  if (typed.trim() === "") throw usageError("Type the recovery code you saved, or pipe it in on standard input.");
  let signer: RecoverySigner;
  try {
    signer = await unlockWithRecoveryCode(userId, status.keys, parts.storage, parts.recovery, typed);
  } catch (error) {
    if (error instanceof RecoveryCodeError) throw usageError(error.reason === "check" ? RECOVERY_TEXT.typo : error.message);
    if (error instanceof RecoveryRefusedError) throw new CliError(error.message, EXIT.locked);
    // The server refuses a proof that is not the code's (403) as the code not being this account's.
    if (error instanceof ApiError && error.status === 403) throw new CliError(RECOVERY_TEXT.mismatch, EXIT.locked);
    throw error;
  }
  await parts.keys.joinListWithRecovery(signer);
  if ((await parts.keys.sync()).state !== "ready")
    throw new CliError("The recovery code was taken, but this terminal is still locked.", EXIT.locked);
  say(UNLOCKED);
}

/**
 * A locked terminal opening the account's keys with the recovery code (docs/protocol/encryption.md, "Recovery
 * code"), as "Use a recovery code" does in the web app: the code's refusals in the words every device uses.
 */
import { RECOVERY_TEXT } from "@daysync/shared";
import { RecoveryCodeError, RecoveryRefusedError, type RecoverySigner, unlockWithRecoveryCode } from "@daysync/shared/crypto";
import { type ApiClient, ApiError } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { fileKeys } from "./account-keys.ts";

/** Where this terminal stands: `locked` comes with the step that takes a typed recovery code. */
export type RecoveryUnlock = { state: "ready" } | { state: "lost" } | { state: "locked"; unlock(typed: string): Promise<void> };

/** Syncs the terminal's keys and says whether a recovery code is needed to read. */
export async function recoveryUnlock(api: ApiClient, store: ConfigStore, server: string, userId: string): Promise<RecoveryUnlock> {
  const parts = fileKeys(api, store, server, userId);
  const status = await parts.keys.sync();
  if (status.state !== "locked") return { state: status.state };
  return {
    state: "locked",
    async unlock(typed) {
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
    },
  };
}

/** A recovery code as the person makes, confirms and types it (docs/protocol/encryption.md, "Recovery code"). */
import { RECOVERY_TEXT } from "@daysync/shared";
import { makeRecoveryCode, parseRecoveryCode, RecoveryCodeError, RecoveryRefusedError } from "@daysync/shared/crypto";

/** A new recovery code to show once; nothing is saved until it is confirmed. */
export const newRecoveryCode = (): Promise<string> => makeRecoveryCode();

/** Whether `typed` is `code` as the person saved it (spacing, case and dashes aside); a typo is no match. */
export const isSameRecoveryCode = (typed: string, code: string): Promise<boolean> =>
  parseRecoveryCode(typed).then(
    (read) => read === code,
    () => false,
  );

/** The sentence for a code that did not unlock: its own check bits first, then what it opened; undefined for other errors. */
export function recoveryRefusal(error: unknown): string | undefined {
  if (error instanceof RecoveryCodeError) return error.reason === "check" ? RECOVERY_TEXT.typo : error.message;
  if (error instanceof RecoveryRefusedError) return error.message;
  return undefined;
}

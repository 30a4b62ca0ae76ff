/** Approving a device by its six-digit code (docs/protocol/encryption.md, "Key approval"): the steps the pages follow. */
import { normalizeApprovalCode } from "@daysync/shared/crypto";

export type { ApprovalStep, KeyApprover, KeyRequester } from "@daysync/shared/crypto";

/** Whether `typed` reads as an approval code (six digits, spaces aside). */
export const isApprovalCode = (typed: string): boolean => normalizeApprovalCode(typed) !== undefined;

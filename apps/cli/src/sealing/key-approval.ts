/**
 * A terminal signed in but locked (docs/protocol/encryption.md, "Approving a device"): it asks the account's other
 * devices for the key and shows a code for the person to type on one of them. The shared protocol (KeyRequester)
 * judges each typed code, ends the request at the third wrong one, and keeps the key only from the device whose code
 * matched, under the exchange's key.
 */
import { APPROVAL_TEXT, KEY_REQUEST_MAX_FAILURES, type KeyRequest } from "@daysync/shared";
import { ApprovalRefusedError, type HeldKeys, KeyRequester } from "@daysync/shared/crypto";
import { CliError } from "../errors.ts";
import type { fileKeys } from "./account-keys.ts";

export const LOCKED_TERMINAL = "Signed in, but this terminal cannot read yet.";
const POLL_MS = 1000;

export interface ApprovalPrompt {
  log(line: string): void;
  /** Time between looks at the request. */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const NOT_VERIFIED = "The key from your other device could not be verified. Run daysync login --password to ask again.";

/** Asks, shows the code, follows the request, and takes the key; resolves once this terminal can read. */
export async function waitForKeyApproval(
  parts: Pick<ReturnType<typeof fileKeys>, "approval" | "storage">,
  userId: string,
  held: HeldKeys,
  prompt: ApprovalPrompt,
): Promise<void> {
  const requester = new KeyRequester(userId, held, parts.storage, parts.approval);
  const asked = await requester.ask();
  prompt.log(`${APPROVAL_TEXT.typeThisCode}: ${requester.code}`);
  prompt.log(APPROVAL_TEXT.whereToType);
  prompt.log("Waiting (Ctrl+C to stop; this terminal stays signed in, locked).");
  // The request's lifetime counted on this clock: the server's clock may not agree with it.
  const deadline = Date.now() + (asked.expires_at - asked.created_at);
  let wrongCodes = 0;
  let matched = false;
  for (;;) {
    if (Date.now() > deadline) throw new CliError("No device answered in time. Run daysync login --password again.");
    const request: KeyRequest | undefined = (await parts.approval.requests()).find((r) => r.id === asked.id);
    if (!request) throw new CliError(`${APPROVAL_TEXT.denied} Run daysync login --password to ask again.`);
    const step = await requester.update(request);
    if (step.step === "refused") throw new CliError(APPROVAL_TEXT.refused.replace("on the new device", "with daysync login --password"));
    if (step.step === "ended") {
      if (step.status === "failed")
        throw new CliError(APPROVAL_TEXT.endedWrongCodes.replace("on the new device", "with daysync login --password"));
      throw new CliError(`${APPROVAL_TEXT.denied} Run daysync login --password to ask again.`);
    }
    if (step.step === "show" && step.wrongCodes > wrongCodes) {
      wrongCodes = step.wrongCodes;
      prompt.log(`${APPROVAL_TEXT.wrongCodeTyped(KEY_REQUEST_MAX_FAILURES - wrongCodes)} ${APPROVAL_TEXT.typeThisCode}: ${requester.code}`);
    }
    if ((step.step === "confirmed" || step.step === "approved") && !matched) {
      matched = true;
      prompt.log(APPROVAL_TEXT.waitingForHandover);
    }
    if (step.step === "approved") {
      try {
        if (await requester.accept(request)) break;
      } catch (error) {
        if (error instanceof ApprovalRefusedError) throw new CliError(NOT_VERIFIED);
        throw error;
      }
    }
    await sleep(prompt.pollMs ?? POLL_MS);
  }
  prompt.log("This terminal can now read your messages.");
}

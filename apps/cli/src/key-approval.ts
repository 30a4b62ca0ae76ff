/**
 * A terminal signed in but locked (decision 020, section 4.2): it asks the account's other devices for the key and
 * waits for one to compare codes, then asks the person whether both show the same six digits. It keeps the key only
 * after a yes, and only as the shared protocol allows (KeyRequester).
 */
import type { KeyRequest } from "@daysync/shared";
import { ApprovalRefusedError, type HeldKeys, KeyRequester } from "@daysync/shared/crypto";
import type { fileKeys } from "./account-keys.ts";
import { CliError } from "./errors.ts";

export const LOCKED_TERMINAL = "Signed in, but this terminal cannot read yet.";
const POLL_MS = 1000;

export interface ApprovalPrompt {
  /** The person's answer to "Does your other device show 123 456? [y/N]". */
  confirm(question: string): Promise<boolean>;
  log(line: string): void;
  /** Time between looks at the request. */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks, waits for an answer on another device, compares, and takes the key; resolves once this terminal can read. */
export async function waitForKeyApproval(
  parts: Pick<ReturnType<typeof fileKeys>, "approval" | "storage">,
  userId: string,
  held: HeldKeys,
  prompt: ApprovalPrompt,
): Promise<void> {
  const requester = new KeyRequester(userId, held, parts.storage, parts.approval);
  const asked = await requester.ask();
  prompt.log("Open Daysync on a device that can read your messages and press Compare codes.");
  prompt.log("Waiting for your other device (Ctrl+C to stop; this terminal stays signed in, locked).");
  // The request's lifetime counted on this clock: the server's clock may not agree with it.
  const deadline = Date.now() + (asked.expires_at - asked.created_at);
  let confirmed = false;
  for (;;) {
    if (Date.now() > deadline) throw new CliError("No device answered in time. Run daysync login --password again.");
    const request: KeyRequest | undefined = (await parts.approval.requests()).find((r) => r.id === asked.id);
    if (!request) throw new CliError("The request was ended on another device. Run daysync login --password to ask again.");
    const step = await requester.update(request);
    if (step.step === "compare" && !confirmed) {
      if (!(await prompt.confirm(`Does your other device show ${step.code}? [y/N] `))) {
        await requester.refuse();
        throw new CliError("Not approved: the codes did not match, so this terminal got no key.");
      }
      confirmed = true;
      prompt.log("Waiting for your other device to approve.");
    }
    if (confirmed && request.status === "approved") {
      try {
        if (await requester.accept(request)) break;
      } catch (error) {
        if (error instanceof ApprovalRefusedError) {
          throw new CliError("The key from your other device could not be verified. Approve this device again from your other device.");
        }
        throw error;
      }
    }
    await sleep(prompt.pollMs ?? POLL_MS);
  }
  prompt.log("This terminal can now read your messages.");
}

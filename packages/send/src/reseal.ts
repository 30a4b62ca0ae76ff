/**
 * "Seal, send, and on a changed key catch up and seal again" (docs/protocol/encryption.md, "Rotation and
 * revocation"): a send sealed under an epoch the account has left is refused with 409 `key_epoch_changed` or
 * `key_rotation_due` and the server keeps nothing of it, so the same message, same id, is sealed again once the
 * caller has caught up on its keys (which makes the next epoch when a rotation is due). Once: refused again, it fails.
 */
import { isKeyMovedCode } from "@daysync/shared";

/** How a client tells a refusal of the key and catches up on it. */
export interface KeyCatchUp {
  /** Whether this error is the server's 409 for a moved key (each client has its own error type). */
  keyMoved(error: unknown): boolean;
  /** Syncs the keys before the send is sealed again; may also forget what was kept of the refused try. */
  catchUp(error: unknown): Promise<void>;
}

/** Runs `send` (which seals at each call, under the epoch current then); on a moved key, catches up and runs it once more. */
export async function resealOnce<T>(send: () => Promise<T>, keys: KeyCatchUp): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!keys.keyMoved(error)) throw error;
    await keys.catchUp(error);
    return send();
  }
}

/** An HTTP answer of a moved key: 409 with one of the two codes. */
export const isKeyMovedAnswer = (status: number, code: string | undefined) => status === 409 && isKeyMovedCode(code ?? "");

/**
 * The one error of the encrypted discussions' checks (docs/protocol/encryption.md, "Encrypted discussions"): its
 * `reason` names the check, its message is the sentence the device shows.
 */
import { SEALED_TEXT } from "../sealed-messages.ts";
import { ROOM_TEXT } from "../ui-text.ts";
import { UndecryptableError } from "./errors.ts";

export type RoomRefusal = keyof typeof ROOM_TEXT | "undecryptable";

export class RoomError extends Error {
  override name = "RoomError";
  constructor(
    readonly reason: RoomRefusal,
    options?: { cause?: unknown },
  ) {
    super(reason === "undecryptable" ? SEALED_TEXT.undecryptable : ROOM_TEXT[reason], options);
  }
}

/** What `open` gives, a value or key that does not open (UndecryptableError) refused as `reason`. */
export async function refusedAs<T>(reason: RoomRefusal, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (cause) {
    if (cause instanceof UndecryptableError) throw new RoomError(reason, { cause });
    throw cause;
  }
}

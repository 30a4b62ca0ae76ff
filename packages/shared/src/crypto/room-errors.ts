/**
 * The one error of the encrypted discussions' checks (docs/protocol/encryption.md, "Encrypted discussions"): its
 * `reason` names the check, its message is the sentence the device shows.
 */
import { SEALED_TEXT } from "../sealed-messages.ts";
import { ROOM_TEXT } from "../ui-text.ts";

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

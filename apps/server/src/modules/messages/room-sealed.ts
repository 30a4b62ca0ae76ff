/**
 * What a send into an encrypted discussion must be (docs/protocol/encryption.md, "Encrypted discussions"): sealed,
 * under the room's current generation (so a device that missed a rotation seals again under the newest), by one of
 * the sender's own member keys. A sealed send into a discussion in clear is refused too.
 */
import { ROOM_ERROR_CODES } from "@daysync/shared";
import { badRequest, conflict } from "../../http/errors.ts";
import type { DiscussionsRepository } from "../discussions/index.ts";

export async function assertSealedForRoom(
  discussions: DiscussionsRepository,
  userId: string,
  spaceId: string,
  input: { generation?: number; sender_key_id?: string } | object,
): Promise<void> {
  const current = await discussions.roomGeneration(spaceId);
  const sealed = "generation" in input && "sender_key_id" in input ? input : undefined;
  if (current === undefined) {
    if (sealed) throw conflict(ROOM_ERROR_CODES.encryptedRoom, "This discussion is not end-to-end encrypted: send the message in clear.");
    return;
  }
  if (!sealed) throw conflict(ROOM_ERROR_CODES.encryptedRoom, "This discussion is end-to-end encrypted: seal the message on your device.");
  if (sealed.generation !== current) {
    throw conflict(
      ROOM_ERROR_CODES.generationNotCurrent,
      `This message is sealed under key generation ${sealed.generation}, but the discussion is at generation ${current}: seal it again.`,
      "generation",
    );
  }
  if ((await discussions.memberKeyOwner(spaceId, current, String(sealed.sender_key_id))) !== userId) {
    throw badRequest(`sender_key_id is not your member key in generation ${current}.`, "sender_key_id");
  }
}

/**
 * Sending a text sealed on this terminal (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"), for `send` and `clip`,
 * through the send pipeline (@daysync/send): sealed under the account's current epoch; when the server answers that
 * the key changed since the last sync, the keys are synced (which makes the next epoch when a rotation is due) and
 * the same message, same id, sealed again and sent once more.
 */

import { sendSealedText } from "@daysync/send";
import { API, isKeyMovedCode, type Message, responseSchemas, type SendMessageInput } from "@daysync/shared";
import { type ApiClient, ApiError } from "./api-client.ts";
import type { MessageKeys } from "./sealing/message-keys.ts";

/** The server refused the seal's epoch: the account's key changed since this terminal synced. */
const keyChanged = (error: unknown) => error instanceof ApiError && error.status === 409 && isKeyMovedCode(error.code);

/** The stored message (still sealed); a second refusal, or a terminal without the current epoch, throws. */
export function postSealedText(api: ApiClient, keys: MessageKeys, message: SendMessageInput, timeoutMs?: number): Promise<Message> {
  return sendSealedText(message, {
    sealer: () => keys.sealer(),
    post: async (body) => {
      const stored = (await api.json("POST", API.messages, responseSchemas.message, body, timeoutMs)).body.message;
      await keys.stored(stored.id);
      return stored;
    },
    keyMoved: keyChanged,
    catchUp: () => keys.sync(),
  });
}

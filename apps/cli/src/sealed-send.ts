/**
 * Sending a text sealed on this terminal (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"), for `send` and `clip`: sealed under the
 * account's current epoch; when the server answers that the key changed since the last sync, the keys are synced
 * (which makes the next epoch when a rotation is due) and the same message, same id, sealed again and sent once more.
 */
import { API, isKeyMovedCode, type Message, responseSchemas, type SendMessageInput } from "@daysync/shared";
import { sealTextMessage } from "@daysync/shared/crypto";
import { type ApiClient, ApiError } from "./api-client.ts";
import type { MessageKeys } from "./message-keys.ts";

/** The server refused the seal's epoch: the account's key changed since this terminal synced. */
const keyChanged = (error: unknown) => error instanceof ApiError && error.status === 409 && isKeyMovedCode(error.code);

/** The stored message (still sealed); a second refusal, or a terminal without the current epoch, throws. */
export async function postSealedText(api: ApiClient, keys: MessageKeys, message: SendMessageInput, timeoutMs?: number): Promise<Message> {
  const post = async () => {
    const stored = (await api.json("POST", API.messages, responseSchemas.message, await sealTextMessage(keys.sealer(), message), timeoutMs))
      .body.message;
    await keys.stored(stored.id);
    return stored;
  };
  try {
    return await post();
  } catch (error) {
    if (!keyChanged(error)) throw error;
    await keys.sync();
    return post();
  }
}

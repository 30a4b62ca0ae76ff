/** A text message to the user's own days, sealed on this device and posted, sealed again once on a moved key. */
import type { SendMessageInput, SendSealedMessageInput } from "@daysync/shared";
import { type Sealer, sealTextMessage } from "@daysync/shared/crypto";
import { type KeyCatchUp, resealOnce } from "./reseal.ts";

export type { Sealer };

/** The sealed body of a text message under the sealer's epoch. */
export const sealText = (sealer: Sealer, message: SendMessageInput): Promise<SendSealedMessageInput> => sealTextMessage(sealer, message);

export interface SealedTextSend<T> extends KeyCatchUp {
  /** The sealer current at this try (a try after catching up gets the next epoch's). */
  sealer(): Sealer | Promise<Sealer>;
  /** Posts the sealed body the way this client talks to the server. */
  post(body: SendSealedMessageInput): Promise<T>;
}

/** Seals `message` and posts it; when the key moved on, catches up and does both once more, same id. */
export function sendSealedText<T>(message: SendMessageInput, send: SealedTextSend<T>): Promise<T> {
  return resealOnce(async () => send.post(await sealText(await send.sealer(), message)), send);
}

/** A sealed message's notification text (docs/protocol/encryption.md, "Sealed messages"), for the service worker. */
import { type NewMessagePush, SEALED_TEXT, type SealedPushPreview } from "@daysync/shared";
import { openPushPreview } from "@daysync/shared/crypto";
import { browserKeyStorage } from "./key-store.ts";

/** Opened with this device's keys (the same store the page keeps them in), or the sentence said in its place. */
export async function openedPushBody(payload: NewMessagePush, sealed: SealedPushPreview): Promise<string> {
  const held = await browserKeyStorage(sealed.user_id)
    .load()
    .catch(() => undefined);
  const opened = await openPushPreview(held?.epochs ?? new Map(), { ...payload, sealed });
  if (opened.state === "opened") return opened.preview;
  return opened.state === "locked" ? SEALED_TEXT.locked : SEALED_TEXT.undecryptable;
}

/**
 * A sealed message's notification (docs/protocol/encryption.md, "Sealed messages" and "Encrypted discussions"), for
 * the service worker: opened with this device's keys (the same store the page keeps them in), or the sentence the
 * app says in its place.
 */
import { type NewMessagePush, SEALED_TEXT, type SealedPushPreview } from "@daysync/shared";
import { type HeldEpochs, openPushPreview, openRoomValue, RoomError } from "@daysync/shared/crypto";
import { browserKeyStorage } from "./key-store.ts";
import { readRoom, signedInUser } from "./room-state.ts";
import { LOCKED_TITLE, openNames, openTitle } from "./room-values.ts";

/** As long as the server lets a discussion's push text be (push.service.ts), cut the same way. */
const BODY_LENGTH = 140;
const shortened = (text: string) => (text.length > BODY_LENGTH ? `${text.slice(0, BODY_LENGTH - 1)}…` : text);

const heldEpochs = async (userId: string): Promise<HeldEpochs> =>
  (
    await browserKeyStorage(userId)
      .load()
      .catch(() => undefined)
  )?.epochs ?? new Map();

export async function openedPushBody(payload: NewMessagePush, sealed: SealedPushPreview): Promise<string> {
  const opened = await openPushPreview(await heldEpochs(sealed.user_id), { ...payload, sealed });
  if (opened.state === "opened") return opened.preview;
  return opened.state === "locked" ? SEALED_TEXT.locked : SEALED_TEXT.undecryptable;
}

type RoomPush = NonNullable<NewMessagePush["room"]>;

/**
 * An encrypted discussion's notification, as a clear discussion's reads: its title, and "<sender's name>: <text or
 * file name>". The room's keys come from what the account's devices keep sealed (room-state.ts), read with the
 * session; what does not open says the app's sentence (the title "Encrypted discussion").
 */
export async function openedRoomPush(payload: NewMessagePush, room: RoomPush): Promise<{ title: string; body: string }> {
  const roomId = payload.discussion_id ?? payload.day_id;
  const locked = { title: LOCKED_TITLE, body: SEALED_TEXT.locked };
  try {
    const userId = await signedInUser();
    if (!userId) return locked;
    const read = await readRoom({ userId, epochs: await heldEpochs(userId) }, roomId);
    if (!read?.holding) return locked;
    const { state, holding } = read;
    const title = (await openTitle(state, holding)) ?? LOCKED_TITLE;
    const keys = holding.generations.get(room.generation);
    if (!keys) return { title, body: SEALED_TEXT.roomLocked };
    const place = {
      field: "preview",
      messageId: payload.message_id,
      type: room.type,
      date: room.date,
      time: room.time,
      senderKeyId: room.sender_key_id,
    } as const;
    const preview = await openRoomValue(keys, place, room.preview).catch(() => undefined);
    if (preview === undefined) return { title, body: SEALED_TEXT.undecryptable };
    const name = (await openNames(state, holding)).namesByKey.get(room.sender_key_id) ?? "A member";
    return { title, body: shortened(`${name}: ${preview}`) };
  } catch (error) {
    // A room this device refuses (its list or a key did not check out) says so as the page does: it does not open.
    if (error instanceof RoomError) return { title: LOCKED_TITLE, body: SEALED_TEXT.undecryptable };
    return locked;
  }
}

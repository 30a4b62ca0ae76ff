/**
 * The note a browser leaves before it deletes messages of the user's days (docs/protocol/encryption.md, "Sealed
 * messages"): sealed, it names the numbers deleted on each date, so the other devices do not say those messages
 * did not arrive. Without the account's key there is no note: the deletion goes on, and shows as a gap elsewhere.
 */
import { API, DELETION_NOTES_API, deletionNotesSchema, type Message, responseSchemas } from "@daysync/shared";
import { numberedOf, openMessage, type SendNumber, sealDeletionNote } from "@daysync/shared/crypto";
import { ApiError, api } from "../api-client.ts";
import { newUuid } from "../uuid.ts";
import { type DeviceKeys, heldEpochsOf, keyedAtOf } from "./device-keys.ts";

async function noteNumbers(keys: DeviceKeys, userId: string, messages: readonly Message[]): Promise<void> {
  const sealing = await keys.sealer();
  if (!("sealer" in sealing)) return;
  const status = keys.getStatus();
  const epochs = heldEpochsOf(status) ?? new Map();
  const byDate = new Map<string, SendNumber[]>();
  for (const message of messages) {
    const numbered = numberedOf(message, await openMessage(userId, epochs, message, keyedAtOf(status)));
    if (numbered) byDate.set(message.date, [...(byDate.get(message.date) ?? []), numbered.number]);
  }
  for (const [date, deleted] of byDate) {
    const id = newUuid();
    const note = await sealDeletionNote(sealing.sealer, { id, date, deleted });
    await api.post(DELETION_NOTES_API.notes, { id, date, note }, deletionNotesSchema);
  }
}

/** Before deleting one message: its number, if it has one and is still there. */
export async function noteMessageDeletion(keys: DeviceKeys, userId: string, id: string): Promise<void> {
  try {
    const { message } = await api.get(API.message(id), responseSchemas.message);
    await noteNumbers(keys, userId, [message]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return;
    throw error;
  }
}

/** Before clearing a day: the numbers of every message it holds. */
export async function noteDayCleared(keys: DeviceKeys, userId: string, dayId: string): Promise<void> {
  const { messages } = await api.get(API.dayMessages(dayId), responseSchemas.dayMessages);
  await noteNumbers(keys, userId, messages);
}

/**
 * Sealing and opening deletion notes (`../deletion-notes.ts`): the numbers a device deleted on one date, as a sealed
 * value bound to the note's id, date and the session that left it. A note that does not open counts for nothing.
 */
import { z } from "zod";
import type { DeletionNote } from "../deletion-notes.ts";
import { UndecryptableError } from "./errors.ts";
import { dayGaps, dayMayHaveExpired, deletedNumber, type Gap, type NumberedMessage, type SendNumber } from "./message-gaps.ts";
import type { HeldEpochs, Opened, Sealer } from "./sealed-message.ts";
import { openValue, parseSealedValue, type SealedPlace, sealValue } from "./sealed-value.ts";

const noteSchema = z.array(z.tuple([z.string(), z.number().int().nonnegative()])).max(1000);

const notePlace = (userId: string, id: string, date: string, sessionId: string, epoch: number): SealedPlace => ({
  field: "deletion",
  userId,
  spaceId: userId,
  messageId: id,
  type: "deletion",
  date,
  time: "",
  senderSessionId: sessionId,
  epoch,
});

/** The note a device leaves before deleting the numbered messages `deleted` of `date`. */
export function sealDeletionNote(sealer: Sealer, note: { id: string; date: string; deleted: readonly SendNumber[] }): Promise<string> {
  const { userId, sessionId, epoch, keys } = sealer;
  const numbers = note.deleted.map((number) => [number.k, number.d]);
  return sealValue(keys.message, notePlace(userId, note.id, note.date, sessionId, epoch), JSON.stringify(numbers));
}

/** The numbers the notes of one date say were deleted (`deletedNumber`), from the notes that open. */
export async function openDeletionNotes(userId: string, epochs: HeldEpochs, notes: readonly DeletionNote[]): Promise<Set<string>> {
  const deleted = new Set<string>();
  for (const note of notes) {
    try {
      const { epoch } = parseSealedValue(note.note);
      const keys = epochs.get(epoch);
      if (!keys) continue;
      const plain = await openValue(keys.message, notePlace(userId, note.id, note.date, note.device_id, epoch), note.note);
      const parsed = noteSchema.safeParse(JSON.parse(plain));
      if (parsed.success) for (const [keyId, index] of parsed.data) deleted.add(deletedNumber(keyId, index));
    } catch (error) {
      if (!(error instanceof UndecryptableError) && !(error instanceof SyntaxError)) throw error;
    }
  }
  return deleted;
}

/**
 * What a device shows of a day's gaps (docs/protocol/encryption.md, "Sealed messages"): from the numbers of the
 * messages it opened, less what the date's notes say was deleted, and nothing before the first that arrived once the
 * plan's cut-off has reached the day.
 */
export async function gapsOfDay(
  userId: string,
  epochs: HeldEpochs,
  day: { date: string; numbered: readonly NumberedMessage[]; notes: readonly DeletionNote[] },
  plan: { retentionMinutes: number | null; now: number },
): Promise<Gap[]> {
  if (day.numbered.length === 0) return [];
  return dayGaps(day.numbered, {
    deleted: await openDeletionNotes(userId, epochs, day.notes),
    leadingMayHaveExpired: dayMayHaveExpired(day.date, plan.retentionMinutes, plan.now),
  });
}

/** A message's number with the name its device goes by, when it has one (older messages do not). */
export function numberedOf(message: { id: string; device?: { name: string } | null }, opened: Opened): NumberedMessage | undefined {
  if (opened.state !== "opened" || !opened.number) return undefined;
  return { id: message.id, number: opened.number, deviceName: message.device?.name || "another device" };
}

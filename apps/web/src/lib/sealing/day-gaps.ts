/**
 * Gaps shown, not hidden (docs/protocol/encryption.md, "Sealed messages"): which of a day's numbered messages never
 * arrived, from the sealed messages this device opens and the day's sealed deletion notes.
 */
import type { DeletionNote, Message } from "@daysync/shared";
import { type Gap, gapsOfDay, numberedOf, openMessage } from "@daysync/shared/crypto";
import { type DeviceKeyStatus, heldEpochsOf, keyedAtOf } from "./device-keys.ts";

export type { Gap } from "@daysync/shared/crypto";

export interface SealedDay {
  date: string;
  /** The day's sealed messages. */
  sealed: readonly Message[];
  notes: readonly DeletionNote[];
}

/** The day's gaps, each with the notice to show before the message that came after the missing ones. */
export async function gapsOfSealedDay(
  user: { id: string; max_message_duration: number | null },
  status: DeviceKeyStatus,
  day: SealedDay,
): Promise<Gap[]> {
  const epochs = heldEpochsOf(status) ?? new Map();
  const keyedAt = keyedAtOf(status);
  const opened = await Promise.all(day.sealed.map(async (m) => numberedOf(m, await openMessage(user.id, epochs, m, keyedAt))));
  const numbered = opened.flatMap((n) => n ?? []);
  return gapsOfDay(
    user.id,
    epochs,
    { date: day.date, numbered, notes: day.notes },
    { retentionMinutes: user.max_message_duration, now: Date.now() },
  );
}

import type { Message } from "@daysync/shared";

/** When a message disappears, ms since the epoch; null when the plan keeps it without limit. */
export function expiresAt(message: Pick<Message, "timestamps">, maxMinutes: number | null): number | null {
  return maxMinutes === null ? null : message.timestamps + maxMinutes * 60_000;
}

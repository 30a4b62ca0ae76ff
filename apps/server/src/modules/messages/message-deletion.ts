/**
 * The one way messages are deleted, whether they expired (the retention sweep) or their owner deleted them:
 * rows gone and their ids remembered, each day's summary recomputed from what remains, and the change log told,
 * all in the caller's transaction.
 */
import type { Work } from "../../feed/unit-of-work.ts";
import type { MessagesRepository } from "./messages.repository.ts";

/**
 * Deletes those of `candidates` that are still the user's messages, records the changes in `work` (which holds the
 * user's row) and returns the ids deleted. `messages` is the repository over the work's transaction. `since` is the
 * retention cut-off (null: unlimited) the days' summaries are shown with. The stored summary counts every message
 * still stored, as the send's `countIntoDay` expects.
 */
export async function deleteUserMessages(
  work: Work,
  messages: MessagesRepository,
  userId: string,
  candidates: readonly string[],
  now: number,
  since: number | null,
  /** The day whose messages these are, all of them (Clear this day). */
  clearedDayId?: string,
): Promise<string[]> {
  const { ids, dayIds } = await messages.deleteMessages(userId, candidates, now);
  if (ids.length === 0) return ids;
  const stored = await messages.liveDays(userId, 0, dayIds);
  await messages.storeDaySummaries(stored, now);
  const shown = since === null ? stored : await messages.liveDays(userId, since, dayIds);
  const deleted = { kind: "messages.deleted", ids, ...(clearedDayId && { clearedDayId }) } as const;
  await work.record([userId], deleted);
  for (const day of shown) await work.record([userId], { kind: "day.upserted", dayId: day.id }, day);
  return ids;
}

/**
 * The one way messages are deleted, whether they expired (the retention sweep) or their owner deleted them:
 * rows gone and their ids remembered, each day's summary recomputed from what remains, and the change log told,
 * all in the caller's transaction.
 */
import type { ChangesRepository } from "../../events/changes.repository.ts";
import type { UserChange } from "../../events/event-bus.ts";
import { presentDay } from "./messages.presenter.ts";
import type { MessagesRepository } from "./messages.repository.ts";

/**
 * Deletes those of `candidates` that are still the user's messages and returns their ids with the changes to
 * publish once the transaction commits. `locked` are the repositories over the transaction that holds the
 * user's row. `since` is the retention cut-off (null: unlimited) the days' summaries are shown with. The stored
 * summary counts every message still stored, as the send's `countIntoDay` expects.
 */
export async function deleteUserMessages(
  locked: { messages: MessagesRepository; changes: ChangesRepository },
  userId: string,
  candidates: readonly string[],
  now: number,
  since: number | null,
): Promise<{ ids: string[]; changes: UserChange[] }> {
  const { messages, changes: changeLog } = locked;
  const { ids, dayIds } = await messages.deleteMessages(userId, candidates, now);
  if (ids.length === 0) return { ids, changes: [] };
  const stored = await messages.liveDays(userId, 0, dayIds);
  await messages.storeDaySummaries(stored, now);
  const shown = since === null ? stored : await messages.liveDays(userId, since, dayIds);
  const changes: UserChange[] = [];
  const seq = await changeLog.append(userId, "messages.deleted", JSON.stringify(ids), now);
  changes.push({ userId, seq, event: { kind: "messages.deleted", ids } });
  for (const day of shown) {
    const daySeq = await changeLog.append(userId, "day.upserted", day.id, now);
    changes.push({ userId, seq: daySeq, event: { kind: "day.upserted", day: presentDay(day) } });
  }
  return { ids, changes };
}

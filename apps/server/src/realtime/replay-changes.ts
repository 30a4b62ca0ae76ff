/**
 * Sends a device the changes it missed, page by page and in short slices between which other requests run,
 * so a device far behind (or many at once) cannot stall the server.
 */
import type { ServerFrame } from "@daysync/shared";
import type { Clock } from "../clock.ts";
import type { ChangesRepository } from "../feed/changes.repository.ts";
import { replayedEvent } from "../feed/kinds/index.ts";
import { LIVE_LIMITS } from "./live-limits.ts";
import { type ReplayRepositories, replayReads } from "./replay.ts";
import type { CurrentSeq } from "./seq-reads.ts";
import { nextTurn } from "./turns.ts";

export interface ReplayRequest {
  changes: ChangesRepository;
  /** Where the user's log ends now (`batchedCurrentSeq`). */
  currentSeq: CurrentSeq;
  repositories: ReplayRepositories;
  clock: Clock;
  userId: string;
  /** The last seq the device has. */
  since: number;
  /** Fill a gap up to this seq only (a live change overtook older ones); without it, replay to the end of the log. */
  upTo?: number;
  send: (message: ServerFrame) => void;
  /** False once the socket closed: the replay stops. */
  isOpen: () => boolean;
}

/**
 * Replays the changes after `since` as events, or sends `reset` when the device is too far behind or the
 * changes it needs were pruned. Returns the seq the device is current to afterwards.
 */
export async function replayChanges(request: ReplayRequest): Promise<number> {
  const { changes, currentSeq, repositories, clock, userId, since, upTo, send, isOpen } = request;
  const current = await currentSeq(userId);
  const reset = () => {
    send({ type: "reset", seq: current });
    return current;
  };
  if (since > current || (upTo === undefined && current - since > LIVE_LIMITS.replayMaxChanges)) return reset();
  const end = Math.min(upTo ?? current, current);
  let sent = since;
  if (sent < end) await nextTurn();
  let sliceStart = performance.now();
  while (sent < end && isOpen()) {
    const rows = await changes.changesBetween(userId, sent, end, LIVE_LIMITS.replayPageRows);
    const reads = replayReads(repositories, userId, clock.now());
    for (const row of rows) {
      // Pruned meanwhile (or before): what the device lacks cannot be replayed.
      if (row.seq !== sent + 1) return reset();
      const event = row.change && (await replayedEvent(row.change, reads));
      if (event) send({ type: "event", seq: row.seq, event });
      sent = row.seq;
      if (performance.now() - sliceStart > LIVE_LIMITS.replaySliceMs) {
        await nextTurn();
        if (!isOpen()) return sent;
        sliceStart = performance.now();
      }
    }
    if (rows.length === 0) return reset();
  }
  return upTo === undefined ? Math.max(sent, current) : sent;
}

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
import { nextTurn } from "./turns.ts";

interface ReplayedRow {
  seq: number;
  event: Awaited<ReturnType<typeof replayedEvent>>;
}

/**
 * The pages read lately, by user and range. After a restart a user's devices come back within seconds, each missing
 * the same changes: they share one read of each page (the log and what it refers to) for `replayPageShareMs`.
 */
export type ReplayPages = Map<string, SharedPage>;

/** A page read as of `asOf`, a moment ahead: what expires before then is left out, so it may be served until then. */
interface SharedPage {
  asOf: number;
  rows: Promise<ReplayedRow[]>;
}

export interface ReplayRequest {
  /** Shared by every replay of one server (`new Map()`). */
  pages: ReplayPages;
  changes: ChangesRepository;
  /** Where the user's log ends now (0 before its first change), read with the other resumes of its turn. */
  currentSeq: (userId: string) => Promise<number>;
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
  const { currentSeq, userId, since, upTo, send, isOpen } = request;
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
    const rows = await sharedPage(request, sent, end);
    for (const row of rows) {
      // Pruned meanwhile (or before): what the device lacks cannot be replayed.
      if (row.seq !== sent + 1) return reset();
      if (row.event) send({ type: "event", seq: row.seq, event: row.event });
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

function sharedPage(request: ReplayRequest, from: number, end: number): Promise<ReplayedRow[]> {
  const { pages, clock } = request;
  const key = `${request.userId}|${from}|${end}`;
  const now = clock.now();
  const shared = pages.get(key);
  if (shared && now <= shared.asOf) return shared.rows;
  const page = { asOf: now + LIVE_LIMITS.replayPageShareMs, rows: readPage(request, from, end, now + LIVE_LIMITS.replayPageShareMs) };
  pages.set(key, page);
  const drop = () => {
    if (pages.get(key) === page) pages.delete(key);
  };
  setTimeout(drop, LIVE_LIMITS.replayPageShareMs).unref();
  page.rows.then(undefined, drop);
  return page.rows;
}

/** One page of the log after `from` with each change's event as of `asOf`, in short slices of the event loop. */
async function readPage(request: ReplayRequest, from: number, end: number, asOf: number): Promise<ReplayedRow[]> {
  const { changes, repositories, userId } = request;
  const rows = await changes.changesBetween(userId, from, end, LIVE_LIMITS.replayPageRows);
  const reads = replayReads(repositories, userId, asOf);
  const page: ReplayedRow[] = [];
  let sliceStart = performance.now();
  for (const row of rows) {
    page.push({ seq: row.seq, event: row.change ? await replayedEvent(row.change, reads) : undefined });
    if (performance.now() - sliceStart > LIVE_LIMITS.replaySliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  return page;
}

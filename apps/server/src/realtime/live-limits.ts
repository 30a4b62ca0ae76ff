/** How a replay is paced (documented in docs/API.md); the socket caps are settings (`config.socketLimits`). */
export const LIVE_LIMITS = {
  /** A device further behind than this many changes gets `reset` (refetch) instead of a replay. */
  replayMaxChanges: 10_000,
  /** Change-log rows read per query during a replay. */
  replayPageRows: 500,
  /** Longest a replay works before it lets other work run. */
  replaySliceMs: 4,
  /**
   * How long a page read for one device of a user also serves that user's other devices resuming from the same point
   * to the same end (after a restart they come back within seconds). A change after the page is past its end, so it
   * reaches them as any new change does; the page is read as of this long ahead, so nothing in it expires meanwhile.
   */
  replayPageShareMs: 1000,
} as const;

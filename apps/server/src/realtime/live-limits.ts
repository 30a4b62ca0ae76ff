/** What one device or account may ask of the live connection (documented in docs/API.md). Counted per server process. */
export const LIVE_LIMITS = {
  /** Open live sockets of one session (a browser's tabs share its session). */
  socketsPerSession: 8,
  /** Open live sockets of one account, over all its sessions. */
  socketsPerUser: 64,
  /** A device further behind than this many changes gets `reset` (refetch) instead of a replay. */
  replayMaxChanges: 10_000,
  /** Change-log rows read per query during a replay. */
  replayPageRows: 500,
  /** Longest a replay works before it lets other work run. */
  replaySliceMs: 4,
} as const;

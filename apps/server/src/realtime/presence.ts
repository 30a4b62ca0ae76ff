/**
 * Which sessions have a live connection open in this process. A device with the app open is "seen now" for as
 * long as its socket is open, without writing it down: heartbeats (the server's pings, the app's own pings) write
 * nothing, and the time is stored once, when the device's last socket closes.
 */
export function createPresence() {
  const openSockets = new Map<string, number>();
  return {
    opened(sessionId: string): void {
      openSockets.set(sessionId, (openSockets.get(sessionId) ?? 0) + 1);
    },
    /** True when that was the session's last open socket here. */
    closed(sessionId: string): boolean {
      const left = (openSockets.get(sessionId) ?? 1) - 1;
      if (left > 0) openSockets.set(sessionId, left);
      else openSockets.delete(sessionId);
      return left <= 0;
    },
    isLive: (sessionId: string): boolean => openSockets.has(sessionId),
  };
}

export type Presence = ReturnType<typeof createPresence>;

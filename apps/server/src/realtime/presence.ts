/**
 * Which sessions have a live connection open. A device with the app open is "seen now" for as long as its socket
 * is open, without writing it down: heartbeats (the server's pings, the app's own pings) write nothing, and the
 * time is stored once, when the device's last socket closes. With several processes the sockets are spread over
 * them, so what each process has open is kept in Redis too, where the Devices list on any process can ask.
 */
import { randomUUID } from "node:crypto";
import type { ChainableCommander, Redis } from "ioredis";

export interface Presence {
  opened(sessionId: string): void;
  /** True when that was the session's last open socket in this process. */
  closed(sessionId: string): boolean;
  /** Those of `sessionIds` with a live connection open in any process. */
  liveAmong(sessionIds: readonly string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

/** Open sockets per session in this process. */
function createLocalCounts() {
  const openSockets = new Map<string, number>();
  return {
    /** True when that was the session's first open socket here. */
    add(sessionId: string): boolean {
      const count = (openSockets.get(sessionId) ?? 0) + 1;
      openSockets.set(sessionId, count);
      return count === 1;
    },
    /** True when that was the session's last open socket here. */
    remove(sessionId: string): boolean {
      const left = (openSockets.get(sessionId) ?? 1) - 1;
      if (left > 0) openSockets.set(sessionId, left);
      else openSockets.delete(sessionId);
      return left <= 0;
    },
    has: (sessionId: string) => openSockets.has(sessionId),
    sessions: () => [...openSockets.keys()],
    get size() {
      return openSockets.size;
    },
  };
}

export function createInProcessPresence(): Presence {
  const local = createLocalCounts();
  return {
    opened: (sessionId) => void local.add(sessionId),
    closed: (sessionId) => local.remove(sessionId),
    liveAmong: async (sessionIds) => new Set(sessionIds.filter(local.has)),
    close: async () => {},
  };
}

/** How long a process's sessions stay live in Redis after it stopped renewing them (it died without cleaning up). */
export const PRESENCE_TTL_MS = 45_000;
const REBUILD_CHUNK = 1_000;

/**
 * Each process keeps the set of sessions it has open under a key of its own, which expires unless the process
 * renews it (so a killed process's devices stop being live by themselves), and lists itself in a registry of
 * processes with sessions. Writes happen only when a session's first socket opens or its last closes here, and
 * one renewal per third of the TTL: nothing per heartbeat.
 */
export function createRedisPresence(
  redis: Redis,
  prefix: string,
  options: { ttlMs?: number; onError?: (error: unknown) => void } = {},
): Presence {
  const { ttlMs = PRESENCE_TTL_MS, onError = (error: unknown) => console.error(error) } = options;
  const processId = randomUUID();
  const registry = `${prefix}presence:processes`;
  const keyOf = (id: string) => `${prefix}presence:process:${id}`;
  const ours = keyOf(processId);
  const local = createLocalCounts();
  /** Ends `multi` by renewing our key's term and listing this process: after any write to the key, which creates it. */
  const keepListed = (multi: ChainableCommander) => multi.pexpire(ours, ttlMs).sadd(registry, processId).exec();

  /** Puts every open session back (Redis restarted or lost the key) and renews the key's term. */
  async function renew(): Promise<void> {
    if (local.size === 0) return;
    const replies = await keepListed(redis.multi());
    if (replies?.[0]?.[1] === 1) return;
    const sessions = local.sessions();
    for (let i = 0; i < sessions.length; i += REBUILD_CHUNK) {
      await redis.sadd(ours, ...sessions.slice(i, i + REBUILD_CHUNK));
    }
    await keepListed(redis.multi());
  }
  const timer = setInterval(() => renew().catch(onError), ttlMs / 3);
  timer.unref();

  return {
    opened(sessionId) {
      if (!local.add(sessionId)) return;
      keepListed(redis.multi().sadd(ours, sessionId)).catch(onError);
    },
    closed(sessionId) {
      const last = local.remove(sessionId);
      if (last) redis.srem(ours, sessionId).catch(onError);
      return last;
    },
    async liveAmong(sessionIds) {
      const live = new Set(sessionIds.filter(local.has));
      const asked = sessionIds.filter((id) => !live.has(id));
      if (asked.length === 0) return live;
      try {
        const others = (await redis.smembers(registry)).filter((id) => id !== processId);
        if (others.length === 0) return live;
        const pipeline = redis.pipeline();
        for (const id of others) pipeline.exists(keyOf(id)).smismember(keyOf(id), ...asked);
        const replies = (await pipeline.exec()) ?? [];
        others.forEach((id, i) => {
          const [, exists] = replies[2 * i] ?? [];
          const [, members] = replies[2 * i + 1] ?? [];
          // Its key expired (the process died) or emptied: it lists itself again with its next session.
          if (exists === 0) redis.srem(registry, id).catch(onError);
          for (const [j, sessionId] of asked.entries()) if (Array.isArray(members) && members[j] === 1) live.add(sessionId);
        });
      } catch (error) {
        // The list still shows what this process knows, and the others' devices by their last-seen time.
        onError(error);
      }
      return live;
    },
    async close() {
      clearInterval(timer);
      await redis.multi().del(ours).srem(registry, processId).exec().catch(onError);
    },
  };
}

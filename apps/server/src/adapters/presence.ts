/**
 * Which sessions have a live connection open. A device with the app open is "seen now" for as long as its socket
 * is open, without writing it down: heartbeats (the server's pings, the app's own pings) write nothing, and the
 * time is stored once, when the device's last socket closes. With several processes the sockets are spread over
 * them, so what each process has open is kept in Redis too, where the Devices list on any process can ask.
 */
import { randomUUID } from "node:crypto";
import type { ChainableCommander, Redis } from "ioredis";

export interface Presence {
  /** The session's first live socket in this process opened. */
  opened(sessionId: string): void;
  /** The session's last live socket in this process closed. */
  closed(sessionId: string): void;
  /** Those of `sessionIds` with a live connection open in any process. */
  liveAmong(sessionIds: readonly string[]): Promise<Set<string>>;
  /** How many sessions have a live connection open: in every process, or (Redis not answering) in this one. */
  liveCount(): Promise<{ count: number; scope: "all" | "this process" }>;
  close(): Promise<void>;
}

export function createInProcessPresence(): Presence {
  const open = new Set<string>();
  return {
    opened: (sessionId) => void open.add(sessionId),
    closed: (sessionId) => void open.delete(sessionId),
    liveAmong: async (sessionIds) => new Set(sessionIds.filter((id) => open.has(id))),
    liveCount: async () => ({ count: open.size, scope: "all" }),
    close: async () => {},
  };
}

/** How long a process's sessions stay live in Redis after it stopped renewing them (it died without cleaning up). */
export const PRESENCE_TTL_MS = 45_000;
const REBUILD_CHUNK = 1_000;
/** Longest the Devices list waits for the other processes' answer: while Redis is away, ioredis queues commands. */
export const PRESENCE_ASK_TIMEOUT_MS = 1_000;

/**
 * Each process keeps the set of sessions it has open under a key of its own, which expires unless the process
 * renews it (so a killed process's devices stop being live by themselves), and lists itself in a registry of
 * processes with sessions. Writes happen only when a session's first socket opens or its last closes here, and
 * one renewal per third of the TTL: nothing per heartbeat.
 */
export function createRedisPresence(
  redis: Redis,
  prefix: string,
  options: { ttlMs?: number; askTimeoutMs?: number; onError?: (error: unknown) => void } = {},
): Presence {
  const { ttlMs = PRESENCE_TTL_MS, askTimeoutMs = PRESENCE_ASK_TIMEOUT_MS, onError = (error: unknown) => console.error(error) } = options;
  const processId = randomUUID();
  const registry = `${prefix}presence:processes`;
  const keyOf = (id: string) => `${prefix}presence:process:${id}`;
  const ours = keyOf(processId);
  const local = new Set<string>();
  /** Ends `multi` by renewing our key's term and listing this process: after any write to the key, which creates it. */
  const keepListed = (multi: ChainableCommander) => multi.pexpire(ours, ttlMs).sadd(registry, processId).exec();

  /** Puts every open session back (Redis restarted or lost the key) and renews the key's term. */
  async function renew(): Promise<void> {
    if (local.size === 0) return;
    const replies = await keepListed(redis.multi());
    if (replies?.[0]?.[1] === 1) return;
    const sessions = [...local];
    for (let i = 0; i < sessions.length; i += REBUILD_CHUNK) {
      await redis.sadd(ours, ...sessions.slice(i, i + REBUILD_CHUNK));
    }
    await keepListed(redis.multi());
  }
  const timer = setInterval(() => renew().catch(onError), ttlMs / 3);
  timer.unref();

  /** Those of `asked` open in another process. */
  async function liveElsewhere(asked: readonly string[]): Promise<Set<string>> {
    const live = new Set<string>();
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
    return live;
  }

  return {
    opened(sessionId) {
      local.add(sessionId);
      keepListed(redis.multi().sadd(ours, sessionId)).catch(onError);
    },
    closed(sessionId) {
      local.delete(sessionId);
      redis.srem(ours, sessionId).catch(onError);
    },
    async liveAmong(sessionIds) {
      const live = new Set(sessionIds.filter((id) => local.has(id)));
      const asked = sessionIds.filter((id) => !live.has(id));
      if (asked.length === 0) return live;
      // Without an answer in time, the list shows what this process knows, the others' devices by their last-seen time.
      let deadline: NodeJS.Timeout | undefined;
      const late = new Promise<Set<string>>((resolve) => {
        deadline = setTimeout(() => {
          onError(new Error(`presence: Redis gave no answer within ${askTimeoutMs} ms`));
          resolve(new Set());
        }, askTimeoutMs);
      });
      const answered = liveElsewhere(asked).catch((error) => {
        onError(error);
        return new Set<string>();
      });
      const elsewhere = await Promise.race([answered, late]).finally(() => clearTimeout(deadline));
      for (const sessionId of elsewhere) live.add(sessionId);
      return live;
    },
    async liveCount() {
      const thisProcess = { count: local.size, scope: "this process" } as const;
      let deadline: NodeJS.Timeout | undefined;
      const late = new Promise<typeof thisProcess>((resolve) => {
        deadline = setTimeout(() => resolve(thisProcess), askTimeoutMs);
      });
      const counted = (async () => {
        const processes = await redis.smembers(registry);
        const others = processes.filter((id) => id !== processId);
        // Our own sessions count from memory: our key may not be written yet.
        const union = others.length > 0 ? await redis.sunion(...others.map(keyOf)) : [];
        const all = new Set([...union, ...local]);
        return { count: all.size, scope: "all" } as const;
      })().catch((error) => {
        onError(error);
        return thisProcess;
      });
      return Promise.race([counted, late]).finally(() => clearTimeout(deadline));
    },
    async close() {
      clearInterval(timer);
      await redis.multi().del(ours).srem(registry, processId).exec().catch(onError);
    },
  };
}

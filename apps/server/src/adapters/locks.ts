/** Short leases on a name: one holder at a time, across processes with Redis, and gone by themselves if the holder dies. */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

export interface Lease {
  /** Keeps the lease for another full term; false if it was lost meanwhile. */
  extend(): Promise<boolean>;
  release(): Promise<void>;
}

export interface Locks {
  /** The lease, or undefined when someone else holds it. */
  tryAcquire(name: string, ttlMs: number): Promise<Lease | undefined>;
}

export function createInProcessLocks(): Locks {
  const held = new Map<string, { token: string; until: number }>();
  return {
    async tryAcquire(name, ttlMs) {
      const current = held.get(name);
      if (current && current.until > Date.now()) return undefined;
      const token = randomUUID();
      held.set(name, { token, until: Date.now() + ttlMs });
      const ours = () => held.get(name)?.token === token;
      return {
        async extend() {
          if (!ours()) return false;
          held.set(name, { token, until: Date.now() + ttlMs });
          return true;
        },
        async release() {
          if (ours()) held.delete(name);
        },
      };
    },
  };
}

// Only the holder (the one who knows the token) may extend or delete the key.
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/** SET NX PX: the single-Redis lock of the Redis documentation, enough where the work is also safe to repeat. */
export function createRedisLocks(redis: Redis, prefix: string): Locks {
  return {
    async tryAcquire(name, ttlMs) {
      const key = `${prefix}lock:${name}`;
      const token = randomUUID();
      if ((await redis.set(key, token, "PX", ttlMs, "NX")) !== "OK") return undefined;
      return {
        extend: async () => (await redis.eval(EXTEND, 1, key, token, ttlMs)) === 1,
        async release() {
          await redis.eval(RELEASE, 1, key, token);
        },
      };
    },
  };
}

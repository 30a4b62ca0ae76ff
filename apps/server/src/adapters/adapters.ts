/** Picks, from config, what processes share: in memory for one process, Redis (REDIS_URL) for several. */
import type { Locker } from "@tus/server";
import { Redis } from "ioredis";
import type { Config } from "../config/config.ts";
import { createInProcessBus, type EventBus } from "../events/event-bus.ts";
import { createRedisBus } from "../events/redis-bus.ts";
import { createInProcessLocks, createRedisLocks, type Locks } from "./locks.ts";
import { createInProcessPresence, createRedisPresence, type Presence } from "./presence.ts";
import { createSharedTusLocker } from "./tus-locker.ts";

export interface Adapters {
  bus: EventBus;
  locks: Locks;
  /** Which sessions have a live connection open, in this process or (with Redis) any. */
  presence: Presence;
  /** tus's upload locker; undefined: tus's own, in memory. */
  tusLocker: Locker | undefined;
  /** The store of @fastify/rate-limit; undefined: in memory. */
  rateLimitStore: { redis: Redis; nameSpace: string } | undefined;
  /** Resolves when Redis answers (the readiness check); undefined without Redis. */
  ping: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

export async function createAdapters(
  config: Pick<Config, "redis">,
  onError: (error: unknown) => void = (error) => console.error(error),
): Promise<Adapters> {
  if (!config.redis) {
    return {
      bus: createInProcessBus(),
      locks: createInProcessLocks(),
      presence: createInProcessPresence(),
      tusLocker: undefined,
      rateLimitStore: undefined,
      ping: undefined,
      close: async () => {},
    };
  }
  const { url, prefix } = config.redis;
  // Connected before the server starts, so a wrong REDIS_URL stops the boot instead of hanging it; later drops reconnect.
  // Named so an operator (or a test) can tell them apart in CLIENT LIST.
  const name = (role: string) => `${prefix}${role}`.replace(/\s/g, "_");
  const redis = new Redis(url, { lazyConnect: true, connectionName: name("commands") });
  const subscriber = new Redis(url, { lazyConnect: true, connectionName: name("subscriber") });
  let firstError: unknown;
  const remember = (error: unknown) => {
    firstError ??= error;
  };
  redis.on("error", remember);
  subscriber.on("error", remember);
  try {
    await Promise.all([redis.connect(), subscriber.connect()]);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    const cause = firstError ?? error;
    throw new Error(`REDIS_URL: cannot connect to Redis (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  for (const connection of [redis, subscriber]) {
    connection.off("error", remember);
    connection.on("error", onError);
  }
  const bus = await createRedisBus({ publisher: redis, subscriber, prefix, onError });
  const locks = createRedisLocks(redis, prefix);
  const tusLocker = createSharedTusLocker(locks, bus);
  const presence = createRedisPresence(redis, prefix, { onError });
  return {
    bus,
    locks,
    presence,
    tusLocker,
    rateLimitStore: { redis, nameSpace: `${prefix}rate:` },
    async ping() {
      await redis.ping();
    },
    async close() {
      tusLocker.close();
      await presence.close();
      await bus.close();
      await Promise.all([redis.quit(), subscriber.quit()]);
    },
  };
}

/**
 * tus's upload lock shared between processes: a lease per upload, and a bus message asking whoever holds it
 * to let go (tus then ends that request), as tus's own in-memory locker does within one process.
 */
import { ERRORS, type Lock, type Locker, type RequestRelease } from "@tus/server";
import type { EventBus } from "../events/event-bus.ts";
import type { Lease, Locks } from "./locks.ts";

export interface SharedLockerOptions {
  /** Give up (tus answers 500 "failed to acquire lock") after this long. */
  acquireTimeoutMs?: number;
  /** A lease outlives a dead process by at most this long; a live holder renews it. */
  leaseMs?: number;
  retryMs?: number;
}

export function createSharedTusLocker(locks: Locks, bus: EventBus, options: SharedLockerOptions = {}): Locker & { close(): void } {
  const { acquireTimeoutMs = 30_000, leaseMs = 15_000, retryMs = 50 } = options;
  /** Uploads this process holds, with the callback that ends the request holding each. */
  const held = new Map<string, RequestRelease>();
  const stop = bus.subscribe("upload.release", ({ uploadId }) => void held.get(uploadId)?.());
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  return {
    close: stop,
    newLock(id: string): Lock {
      let lease: Lease | undefined;
      let renew: NodeJS.Timeout | undefined;
      let ownRelease: RequestRelease | undefined;
      return {
        async lock(signal, requestRelease) {
          const deadline = Date.now() + acquireTimeoutMs;
          for (let attempt = 0; ; attempt++) {
            lease = await locks.tryAcquire(`tus:${id}`, leaseMs);
            if (lease) break;
            if (signal.aborted || Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
            // Asked again now and then, in case the holder had not yet registered when first asked.
            if (attempt % 20 === 0) bus.publish("upload.release", { uploadId: id });
            await sleep(retryMs);
          }
          held.set(id, requestRelease);
          ownRelease = requestRelease;
          // A lease lost (this process stalled past it, Redis restarted) may be someone else's now: stop writing.
          const keep = () => lease?.extend().then((kept) => kept || requestRelease(), requestRelease);
          renew = setInterval(() => void keep(), leaseMs / 3);
          renew.unref();
        },
        async unlock() {
          clearInterval(renew);
          if (held.get(id) === ownRelease) held.delete(id);
          await lease?.release();
          lease = undefined;
        },
      };
    },
  };
}

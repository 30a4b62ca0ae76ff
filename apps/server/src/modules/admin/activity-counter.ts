/**
 * Messages and files sent per hour, for the admin page's figures: counted in memory as sends commit (nothing is
 * written on the send's path) and added to the database now and then; every process adds its own counts.
 */
import type { AdminRepository } from "./admin.repository.ts";

export const HOUR_MS = 60 * 60 * 1000;
const FLUSH_EVERY_MS = 30_000;
/** Hours kept: the figures show the last 24. */
const KEPT_MS = 48 * HOUR_MS;

export function createActivityCounter(deps: { admin: Pick<AdminRepository, "addActivity" | "pruneActivity">; now: () => number }) {
  let pending = new Map<number, { messages: number; files: number }>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(): Promise<void> {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    try {
      await deps.admin.addActivity([...taken].map(([hour, c]) => ({ hour, ...c })));
      await deps.admin.pruneActivity(deps.now() - KEPT_MS);
    } catch (error) {
      // Put back, to be added with the next flush.
      for (const [hour, c] of taken) {
        const now = pending.get(hour) ?? { messages: 0, files: 0 };
        pending.set(hour, { messages: now.messages + c.messages, files: now.files + c.files });
      }
      throw error;
    }
  }

  return {
    /** One message was sent; `isFile`: it carries a file. */
    count(isFile: boolean): void {
      const hour = Math.floor(deps.now() / HOUR_MS) * HOUR_MS;
      const c = pending.get(hour) ?? { messages: 0, files: 0 };
      c.messages++;
      if (isFile) c.files++;
      pending.set(hour, c);
    },
    /** Writes what was counted; flushes run one after another. */
    flush(): Promise<void> {
      flushing = flushing.catch(() => undefined).then(write);
      return flushing;
    },
    /** Flushes every 30 s until stopped (the stop flushes once more). */
    start(onError: (error: unknown) => void): () => Promise<void> {
      const timer = setInterval(() => void this.flush().catch(onError), FLUSH_EVERY_MS);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await this.flush().catch(onError);
      };
    },
  };
}

export type ActivityCounter = ReturnType<typeof createActivityCounter>;
